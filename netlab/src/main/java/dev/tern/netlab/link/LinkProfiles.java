package dev.tern.netlab.link;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The project's link profiles (figures from the field notes). The RTT is split evenly across the
 * directions.
 *
 * <p>Queues: droptail, sized at twice the bandwidth-delay product at the (mean) rate and never
 * below 32 full-size packets, in bytes ({@code max(2 x rate x RTT / 8, 48000)}). Two BDPs let a
 * loss-based sender keep the bottleneck busy after halving its window; the floor keeps slow
 * links from dropping the first burst of a connection.
 *
 * <p>Trace profiles replay mahimahi traces: the {@code .up} file drives the client-to-server
 * direction and the {@code .down} file the server-to-client one. The traces ship with netlab
 * as class-path resources under {@value #BUNDLED_RESOURCES} (mahimahi's files, unmodified,
 * GPL-3.0-or-later; origin and checksums in the README.txt beside them), so any working
 * directory and the benchmark jar find them. A user's own trace files replace them when the
 * system property {@value #TRACES_DIR_PROPERTY} or else the environment variable
 * {@value #TRACES_DIR_ENV} names a directory holding files of the same names.
 */
public final class LinkProfiles {
  /** System property naming the trace directory. */
  public static final String TRACES_DIR_PROPERTY = "tern.traces.dir";
  /** Environment variable naming the trace directory. */
  public static final String TRACES_DIR_ENV = "TERN_TRACES_DIR";
  /** Class-path folder of the bundled traces. */
  public static final String BUNDLED_RESOURCES = "/dev/tern/netlab/traces/";
  /** Prefix naming a bundled trace where a file is expected ({@code bundled:Verizon-LTE-short.up}). */
  public static final String BUNDLED_PREFIX = "bundled:";

  private static final List<String> BUNDLED = List.of("Verizon-LTE-short", "TMobile-LTE-short",
      "ATT-LTE-driving-2016", "TMobile-UMTS-driving", "Verizon-EVDO-driving").stream()
      .flatMap(b -> java.util.stream.Stream.of(b + ".up", b + ".down")).toList();

  private static final int MIN_QUEUE_BYTES = 32 * 1500;
  private static final Map<String, Supplier<LinkProfile>> PROFILES = new LinkedHashMap<>();
  private static final Map<String, TraceSchedule> TRACE_CACHE = new ConcurrentHashMap<>();

  static {
    PROFILES.put("lan", () -> new LinkProfile("lan", "no shaping",
        LinkConfig.unlimited(), LinkConfig.unlimited()));
    PROFILES.put("wifi", () -> symmetric("wifi", "50 Mbit/s, RTT 20 ms, 0.1% loss",
        shaped(50e6, 20).loss(0.001)));
    PROFILES.put("mobile", () -> symmetric("mobile",
        "1.1 Mbit/s, RTT 200 ms, 0.6% bursty loss (mean burst 6), 0.2% reordering, 50 ms jitter",
        shaped(1.1e6, 200).burstLoss(0.006, 6).reorder(0.002, 30).jitterMs(50)));
    PROFILES.put("mobile-tail", () -> symmetric("mobile-tail", "2 Mbit/s, RTT 425 ms, 3.5% loss",
        shaped(2e6, 425).loss(0.035)));
    PROFILES.put("crowded", () -> symmetric("crowded", "1 Mbit/s, RTT 300 ms, 7% loss",
        shaped(1e6, 300).loss(0.07)));
    PROFILES.put("lossy-fat", () -> symmetric("lossy-fat",
        "100 Mbit/s, RTT 100 ms, 1.5% random loss", shaped(100e6, 100).loss(0.015)));
    PROFILES.put("lte-verizon", () -> traced("lte-verizon", "Verizon LTE trace, RTT 70 ms",
        "Verizon-LTE-short", 70));
    PROFILES.put("lte-tmobile", () -> traced("lte-tmobile", "T-Mobile LTE trace, RTT 60 ms",
        "TMobile-LTE-short", 60));
    PROFILES.put("lte-att", () -> traced("lte-att", "AT&T LTE driving trace, RTT 80 ms",
        "ATT-LTE-driving-2016", 80));
    PROFILES.put("3g-tmobile", () -> traced("3g-tmobile", "T-Mobile UMTS driving trace, RTT 150 ms",
        "TMobile-UMTS-driving", 150));
    PROFILES.put("evdo-verizon", () -> traced("evdo-verizon",
        "Verizon EVDO driving trace, RTT 200 ms", "Verizon-EVDO-driving", 200));
  }

  private LinkProfiles() {}

  /** The profile names, in a stable order. */
  public static List<String> names() {
    return Collections.unmodifiableList(new ArrayList<>(PROFILES.keySet()));
  }

  /**
   * The profile called {@code name}; trace profiles load their traces on first use.
   *
   * @throws IllegalArgumentException naming the value and the known names when unknown
   * @throws IllegalStateException naming the path when a trace directory or file is missing
   */
  public static LinkProfile get(String name) {
    Supplier<LinkProfile> s = name == null ? null : PROFILES.get(name);
    if (s == null) {
      throw new IllegalArgumentException("unknown link profile '" + name + "'; known: " + names());
    }
    return s.get();
  }

  /** The file names of the bundled traces (each profile's {@code .up} and {@code .down}). */
  public static List<String> bundledTraces() {
    return BUNDLED;
  }

  /**
   * The directory of a user's own traces, when {@value #TRACES_DIR_PROPERTY} or
   * {@value #TRACES_DIR_ENV} names one; empty when neither is set (the bundled traces are used).
   *
   * @throws IllegalStateException naming the path and where it came from when it is not a directory
   */
  public static Optional<Path> tracesOverride() {
    String configured = System.getProperty(TRACES_DIR_PROPERTY);
    String source = "system property " + TRACES_DIR_PROPERTY;
    if (configured == null || configured.isEmpty()) {
      configured = System.getenv(TRACES_DIR_ENV);
      source = "environment variable " + TRACES_DIR_ENV;
    }
    if (configured == null || configured.isEmpty()) {
      return Optional.empty();
    }
    Path p = Paths.get(configured).toAbsolutePath();
    if (!Files.isDirectory(p)) {
      throw new IllegalStateException("trace directory " + p + " (from " + source
          + ") is not a directory; unset it to use the bundled traces");
    }
    return Optional.of(p);
  }

  /**
   * Loads (once) the trace {@code fileName}: from {@link #tracesOverride()} when set, else the
   * bundled copy.
   *
   * @throws IllegalStateException naming the path when the override lacks the file
   */
  public static TraceSchedule trace(String fileName) {
    Optional<Path> dir = tracesOverride();
    if (dir.isEmpty()) {
      return bundledTrace(fileName);
    }
    Path file = dir.get().resolve(fileName);
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException("trace file " + file + " does not exist (trace directory from "
          + TRACES_DIR_PROPERTY + " / " + TRACES_DIR_ENV + ")");
    }
    return TRACE_CACHE.computeIfAbsent(file.toString(), k -> TraceSchedule.load(file));
  }

  /**
   * Loads (once) the bundled trace {@code fileName} from the class path, whatever the override.
   * Its {@link TraceSchedule#source()} is {@code bundled:<fileName>}.
   *
   * @throws IllegalArgumentException naming the value and the bundled names when unknown
   */
  public static TraceSchedule bundledTrace(String fileName) {
    if (!BUNDLED.contains(fileName)) {
      throw new IllegalArgumentException("no bundled trace '" + fileName + "'; bundled: " + BUNDLED);
    }
    String source = BUNDLED_PREFIX + fileName;
    return TRACE_CACHE.computeIfAbsent(source, k -> {
      try (InputStream in = LinkProfiles.class.getResourceAsStream(BUNDLED_RESOURCES + fileName)) {
        if (in == null) {
          throw new IllegalStateException("bundled trace " + BUNDLED_RESOURCES + fileName
              + " is missing from the class path");
        }
        return TraceSchedule.read(fileName, source, in);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read bundled trace " + fileName, e);
      }
    });
  }

  /** A builder with the rate, half the RTT as delay and the queue rule of the class comment. */
  private static LinkConfig.Builder shaped(double rateBitsPerSecond, double rttMs) {
    return LinkConfig.builder()
        .rateBitsPerSecond(Math.round(rateBitsPerSecond))
        .delayMs(rttMs / 2)
        .queueLimitBytes(queueBytes(Math.round(rateBitsPerSecond), rttMs));
  }

  /**
   * The profiles' droptail size for a link of {@code rateBitsPerSecond} and {@code rttMs}:
   * {@code max(2 x BDP, 32 x 1500)} bytes.
   */
  public static long defaultQueueBytes(long rateBitsPerSecond, double rttMs) {
    return queueBytes(rateBitsPerSecond, rttMs);
  }

  private static long queueBytes(long rateBitsPerSecond, double rttMs) {
    long bdp = Math.round(rateBitsPerSecond * rttMs / 1000 / 8);
    return Math.max(2 * bdp, MIN_QUEUE_BYTES);
  }

  private static LinkProfile symmetric(String name, String description, LinkConfig.Builder b) {
    LinkConfig c = b.build();
    return new LinkProfile(name, description, c, c);
  }

  private static LinkProfile traced(String name, String description, String base, double rttMs) {
    return new LinkProfile(name, description, traceDirection(base + ".up", rttMs),
        traceDirection(base + ".down", rttMs));
  }

  private static LinkConfig traceDirection(String file, double rttMs) {
    TraceSchedule t = trace(file);
    return LinkConfig.builder().trace(t).delayMs(rttMs / 2)
        .queueLimitBytes(queueBytes(t.meanRateBitsPerSecond(), rttMs)).build();
  }
}
