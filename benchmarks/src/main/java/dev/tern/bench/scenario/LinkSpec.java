package dev.tern.bench.scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the benchmark knows of a link: enough to compute the physical limit each result is read
 * against. The values are those of FIELD-NOTES.md, the same ones the emulator's profiles use.
 *
 * @param name profile name
 * @param downBitsPerSecond server-to-client rate; 0 for unshaped
 * @param upBitsPerSecond client-to-server rate; 0 for unshaped
 * @param rttMillis base round-trip time without jitter or queueing
 * @param loss long-run fraction of packets lost
 * @param jitterMillis delay variation the link adds
 * @param trace true when the rate comes from a trace replay (its mean is given)
 */
public record LinkSpec(String name, double downBitsPerSecond, double upBitsPerSecond, double rttMillis,
    double loss, double jitterMillis, boolean trace) {

  private static final Map<String, LinkSpec> KNOWN = new TreeMap<>();

  static {
    add(new LinkSpec("loopback", 0, 0, 0, 0, 0, false));
    add(new LinkSpec("lan", 0, 0, 0, 0, 0, false));
    add(new LinkSpec("wifi", 50e6, 50e6, 20, 0.001, 0, false));
    add(new LinkSpec("mobile", 1.1e6, 1.1e6, 200, 0.006, 50, false));
    add(new LinkSpec("mobile-tail", 2e6, 2e6, 425, 0.035, 0, false));
    add(new LinkSpec("crowded", 1e6, 1e6, 300, 0.07, 0, false));
    add(new LinkSpec("lossy-fat", 100e6, 100e6, 100, 0.015, 0, false));
  }

  private static void add(LinkSpec s) {
    KNOWN.put(s.name(), s);
  }

  /** Names of the built-in profiles (trace profiles come on top, as {@code lte-<carrier>}). */
  public static List<String> knownNames() {
    return List.copyOf(KNOWN.keySet());
  }

  /**
   * The profile called {@code name}: a built-in one, or {@code lte-verizon}, {@code lte-tmobile},
   * {@code lte-att} (mean rates read from the mahimahi traces in {@code traceDir}).
   *
   * @throws IllegalArgumentException for an unknown name
   */
  public static LinkSpec byName(String name, Path traceDir) {
    LinkSpec s = KNOWN.get(name);
    if (s != null) {
      return s;
    }
    String base = traceBase(name);
    if (base == null) {
      throw new IllegalArgumentException("unknown profile '" + name + "'; known: " + KNOWN.keySet()
          + " and lte-verizon, lte-tmobile, lte-att");
    }
    double down = traceMeanBitsPerSecond(traceDir.resolve(base + ".down"));
    double up = traceMeanBitsPerSecond(traceDir.resolve(base + ".up"));
    return new LinkSpec(name, down, up, traceRttMillis(name), 0, 0, true);
  }

  /** The mahimahi trace file stem for a trace profile, or null. */
  public static String traceBase(String name) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "lte-verizon": return "Verizon-LTE-short";
      case "lte-tmobile": return "TMobile-LTE-short";
      case "lte-att": return "ATT-LTE-driving-2016";
      default: return null;
    }
  }

  private static double traceRttMillis(String name) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "lte-verizon": return 70;
      case "lte-tmobile": return 60;
      default: return 80;
    }
  }

  /** Mean rate of a mahimahi trace: one 1500-byte delivery opportunity per line, times in ms. */
  static double traceMeanBitsPerSecond(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      long lastMs = 0;
      int n = 0;
      for (String l : lines) {
        String t = l.trim();
        if (!t.isEmpty()) {
          lastMs = Long.parseLong(t);
          n++;
        }
      }
      if (n == 0 || lastMs <= 0) {
        throw new IllegalArgumentException("trace " + file + " has no delivery opportunities");
      }
      return n * 1500.0 * 8 / (lastMs / 1000.0);
    } catch (IOException e) {
      throw new UncheckedIOException("reading trace " + file, e);
    }
  }

  /** Whether the link shapes anything (a rate or a delay). */
  public boolean shaped() {
    return downBitsPerSecond > 0 || rttMillis > 0;
  }

  /**
   * The least time a request of {@code upBytes} answered with {@code downBytes} can take: one base
   * RTT plus serialising the payloads at the link rates (headers left out, so it is a floor).
   */
  public double idealExchangeMillis(long upBytes, long downBytes) {
    double ms = rttMillis;
    if (upBitsPerSecond > 0) {
      ms += upBytes * 8 * 1000.0 / upBitsPerSecond;
    }
    if (downBitsPerSecond > 0) {
      ms += downBytes * 8 * 1000.0 / downBitsPerSecond;
    }
    return ms;
  }

  /**
   * The physical floor of the same exchange: like {@link #idealExchangeMillis} but with the delay at
   * the low end of its jitter (the emulator wanders each direction's delay within +-jitter/2). A
   * measured latency below this is a measurement bug.
   */
  public double floorExchangeMillis(long upBytes, long downBytes) {
    return idealExchangeMillis(upBytes, downBytes) - jitterMillis;
  }

  /** The highest goodput the downlink allows: rate x (1 - loss), in bits per second; 0 when unshaped. */
  public double idealGoodputBitsPerSecond() {
    return downBitsPerSecond * (1 - loss);
  }
}
