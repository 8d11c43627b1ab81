package dev.tern.bench.soak;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** This process's own resources, read the way an operator would from outside: heap, threads, fds, RSS. */
final class Probe {
  private static final double MIB = 1024.0 * 1024.0;

  private Probe() {}

  /**
   * Heap in use right after a full collection, in MiB: what is still reachable, the figure that
   * grows with a leak (the heap in use at a random moment mostly measures garbage not yet
   * collected).
   */
  static double heapAfterGcMiB() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / MIB;
  }

  /** Live threads, daemon or not. */
  static int threads() {
    return ManagementFactory.getThreadMXBean().getThreadCount();
  }

  /**
   * Open file descriptors (entries of {@code /proc/self/fd}, less the one listing them); -1 where
   * there is no /proc.
   */
  static int openFds() {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return (int) fds.count() - 1;
    } catch (IOException | java.io.UncheckedIOException e) {
      return -1;
    }
  }

  /** Resident set size in MiB ({@code VmRSS} of {@code /proc/self/status}); NaN where there is no /proc. */
  static double rssMiB() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          String kb = line.substring("VmRSS:".length()).trim().split("\\s+")[0];
          return Long.parseLong(kb) / 1024.0;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return Double.NaN;
    }
    return Double.NaN;
  }

  /** The load averages of {@code /proc/loadavg} (1, 5, 15 minutes, runnable/total), or empty. */
  static String loadAverage() {
    try {
      String[] p = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return p[0] + " " + p[1] + " " + p[2] + " (" + p[3] + " runnable/total tasks)";
    } catch (IOException | ArrayIndexOutOfBoundsException e) {
      return "";
    }
  }
}
