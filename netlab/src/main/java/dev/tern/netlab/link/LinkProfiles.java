package dev.tern.netlab.link;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * direction and the {@code .down} file the server-to-client one. The trace directory is taken
 * from the system property {@code tern.traces.dir}, else the environment variable
 * {@code TERN_TRACES_DIR}, else the first {@code shared/traces} found in the working directory or
 * one of its ancestors (so {@code ../shared/traces} relative to the repository root is found from
 * any module).
 */
public final class LinkProfiles {
  /** System property naming the trace directory. */
  public static final String TRACES_DIR_PROPERTY = "tern.traces.dir";
  /** Environment variable naming the trace directory. */
  public static final String TRACES_DIR_ENV = "TERN_TRACES_DIR";

  private static final int MIN_QUEUE_BYTES = 32 * 1500;
  private static final Map<String, Supplier<LinkProfile>> PROFILES = new LinkedHashMap<>();
  private static final Map<Path, TraceSchedule> TRACE_CACHE = new ConcurrentHashMap<>();

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

  /**
   * The trace directory (see the class comment for the search order).
   *
   * @throws IllegalStateException naming the paths tried when none exists
   */
  public static Path tracesDirectory() {
    String configured = System.getProperty(TRACES_DIR_PROPERTY);
    String source = "system property " + TRACES_DIR_PROPERTY;
    if (configured == null || configured.isEmpty()) {
      configured = System.getenv(TRACES_DIR_ENV);
      source = "environment variable " + TRACES_DIR_ENV;
    }
    if (configured != null && !configured.isEmpty()) {
      Path p = Paths.get(configured).toAbsolutePath();
      if (!Files.isDirectory(p)) {
        throw new IllegalStateException("trace directory " + p + " (from " + source + ") does not exist");
      }
      return p;
    }
    Path cwd = Paths.get("").toAbsolutePath();
    for (Path a = cwd; a != null; a = a.getParent()) {
      Path p = a.resolve("shared").resolve("traces");
      if (Files.isDirectory(p)) {
        return p;
      }
    }
    throw new IllegalStateException("trace directory not found: no shared/traces in " + cwd
        + " or any of its parents (e.g. " + cwd.resolve("../shared/traces").normalize()
        + "); set -D" + TRACES_DIR_PROPERTY + "=<dir> or " + TRACES_DIR_ENV);
  }

  /** Loads (once) the trace file {@code fileName} from {@link #tracesDirectory()}. */
  public static TraceSchedule trace(String fileName) {
    Path file = tracesDirectory().resolve(fileName);
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException("trace file " + file + " does not exist");
    }
    return TRACE_CACHE.computeIfAbsent(file, TraceSchedule::load);
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
