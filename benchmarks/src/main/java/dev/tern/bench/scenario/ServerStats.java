package dev.tern.bench.scenario;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One sample of the server process's resources: heap in use after a full collection, resident set
 * size (Linux {@code /proc/self/status} {@code VmRSS}) and process CPU time. Sent by the server as
 * one line, {@code STATS <heapBytes> <rssBytes> <cpuNs>}; differences between two samples divided
 * by a count give the per-connection and per-call figures of the {@code scale} scenario.
 *
 * @param heapBytes heap used after {@code System.gc()}
 * @param rssBytes resident set size, or -1 where {@code /proc} is absent
 * @param cpuNs CPU time of the whole process (all threads), or -1 if the JVM cannot tell
 */
record ServerStats(long heapBytes, long rssBytes, long cpuNs) {
  static final String PREFIX = "STATS ";

  /** Samples this process. */
  static ServerStats sample() {
    System.gc();
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    long cpu = -1;
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      cpu = os.getProcessCpuTime();
    }
    long rss = -1;
    try {
      rss = rssBytes(Files.readString(Path.of("/proc/self/status")));
    } catch (IOException | RuntimeException e) {
      // No /proc (not Linux): RSS stays unknown.
    }
    return new ServerStats(heap, rss, cpu);
  }

  /** {@code VmRSS} of a {@code /proc/<pid>/status} text, in bytes; -1 if absent. */
  static long rssBytes(String procStatus) {
    for (String line : procStatus.split("\n")) {
      if (line.startsWith("VmRSS:")) {
        String[] f = line.substring(6).trim().split("\\s+");
        long v = Long.parseLong(f[0]);
        return f.length > 1 && f[1].equalsIgnoreCase("kB") ? v * 1024 : v;
      }
    }
    return -1;
  }

  /** The line the server prints. */
  String toLine() {
    return PREFIX + heapBytes + " " + rssBytes + " " + cpuNs;
  }

  /** Parses {@link #toLine()}'s output. */
  static ServerStats parse(String line) {
    if (line == null || !line.startsWith(PREFIX)) {
      throw new IllegalArgumentException("not a server stats line: '" + line + "'");
    }
    String[] f = line.substring(PREFIX.length()).trim().split(" ");
    if (f.length != 3) {
      throw new IllegalArgumentException("server stats line needs 3 fields: '" + line + "'");
    }
    return new ServerStats(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]));
  }

  /**
   * Per-unit growth from {@code before} to this sample: {@code [heap bytes, rss bytes, cpu ns]}
   * divided by {@code count}; NaN where either sample lacks the figure.
   */
  double[] perUnitSince(ServerStats before, int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive, was " + count);
    }
    return new double[] {
        delta(before.heapBytes, heapBytes, count),
        before.rssBytes < 0 || rssBytes < 0 ? Double.NaN : delta(before.rssBytes, rssBytes, count),
        before.cpuNs < 0 || cpuNs < 0 ? Double.NaN : delta(before.cpuNs, cpuNs, count)};
  }

  private static double delta(long a, long b, int count) {
    return (double) (b - a) / count;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "heap %.1f MiB, rss %.1f MiB, cpu %.2f s", heapBytes / 1048576.0,
        rssBytes / 1048576.0, cpuNs / 1e9);
  }
}
