package dev.tern.bench.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How busy the machine's CPUs were over an interval, from {@code /proc/stat} (all CPUs, every
 * process, not only the benchmark's): the share of CPU time not idle or waiting on I/O, and the
 * mean length of the run queue ({@code /proc/loadavg} at the end). A busy share near 100% means
 * processes waited for a CPU, which adds delay to real-time figures.
 */
final class CpuLoad {
  private static final Path STAT = Path.of("/proc/stat");
  private final long[] start;
  private double busyPercent = Double.NaN;

  private CpuLoad(long[] start) {
    this.start = start;
  }

  /** Starts an interval now. */
  static CpuLoad start() {
    return new CpuLoad(sample());
  }

  /** Ends the interval: a line such as {@code CPU busy 37% of 2 CPUs, load average 1.2}. */
  String stop() {
    long[] end = sample();
    if (start == null || end == null) {
      busyPercent = Double.NaN;
      return "CPU load unknown (no /proc/stat)";
    }
    long busy = end[0] - start[0];
    long all = end[1] - start[1];
    busyPercent = all == 0 ? 0 : 100.0 * busy / all;
    String loadavg;
    try {
      loadavg = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException | RuntimeException e) {
      loadavg = "?";
    }
    return String.format(Locale.ROOT, "CPU busy %.0f%% of %d CPUs, load average %s", all == 0 ? 0 : 100.0 * busy / all,
        Runtime.getRuntime().availableProcessors(), loadavg);
  }

  /** The busy share of the interval in percent, once {@link #stop()} was called; NaN if unknown. */
  double busyPercent() {
    return busyPercent;
  }

  /** {busy jiffies, all jiffies} from the first line of /proc/stat, or null. */
  static long[] sample() {
    try {
      return parse(Files.readAllLines(STAT).get(0));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Parses {@code cpu user nice system idle iowait irq softirq steal ...}: busy = all - idle - iowait. */
  static long[] parse(String cpuLine) {
    String[] f = cpuLine.trim().split("\\s+");
    long all = 0;
    for (int i = 1; i < f.length && i <= 8; i++) {
      all += Long.parseLong(f[i]);
    }
    long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
    return new long[] {all - idle, all};
  }
}
