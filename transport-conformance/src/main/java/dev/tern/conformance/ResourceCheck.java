package dev.tern.conformance;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a piece of work may leak, taken before it and compared after everything it opened was
 * closed: threads started since and still alive, open file descriptors, and heap in use after a
 * full collection. File descriptors and heap are compared with a slack (class loading opens jars,
 * caches fill once), and every figure is kept for the report, so a leak that grows with the work
 * shows up in the figures even under the slack.
 */
public final class ResourceCheck {
  private final Set<Thread> threads;
  private final int fds;
  private final long heap;

  private ResourceCheck(Set<Thread> threads, int fds, long heap) {
    this.threads = threads;
    this.fds = fds;
    this.heap = heap;
  }

  /** Takes the snapshot (after a full collection, for the heap figure). */
  public static ResourceCheck take() {
    return new ResourceCheck(ThreadLeaks.snapshot(), openFileDescriptors(), heapAfterGc());
  }

  /** Open file descriptors of this process, from /proc/self/fd; -1 where there is no /proc. */
  public static int openFileDescriptors() {
    String[] names = new File("/proc/self/fd").list();
    return names == null ? -1 : names.length;
  }

  /** Heap bytes in use after {@link System#gc()} twice. */
  public static long heapAfterGc() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** What the comparison found. */
  public static final class Result {
    /** Threads started since the snapshot and still alive after the grace period. */
    public final List<String> leakedThreads;
    /** File descriptors open now minus at the snapshot. */
    public final int fdDelta;
    /** Heap in use after a full collection now minus at the snapshot, in bytes. */
    public final long heapDelta;
    private final int fdSlack;
    private final long heapSlack;

    Result(List<String> leakedThreads, int fdDelta, long heapDelta, int fdSlack, long heapSlack) {
      this.leakedThreads = leakedThreads;
      this.fdDelta = fdDelta;
      this.heapDelta = heapDelta;
      this.fdSlack = fdSlack;
      this.heapSlack = heapSlack;
    }

    /** The leaks beyond the slack, as sentences; empty when nothing leaked. */
    public List<String> problems() {
      List<String> out = new ArrayList<>();
      if (!leakedThreads.isEmpty()) {
        out.add("threads still alive: " + leakedThreads);
      }
      if (fdDelta > fdSlack) {
        out.add(fdDelta + " more file descriptors open (slack " + fdSlack + ")");
      }
      if (heapDelta > heapSlack) {
        out.add((heapDelta >> 20) + " MiB more heap after GC (slack " + (heapSlack >> 20) + " MiB)");
      }
      return out;
    }

    /** The figures in one line: "threads +0, fds +2, heap after GC +1.3 MiB". */
    public String summary() {
      return String.format(java.util.Locale.ROOT, "threads +%d, fds %+d, heap after GC %+.1f MiB",
          leakedThreads.size(), fdDelta, heapDelta / 1048576.0);
    }
  }

  /**
   * Compares now against the snapshot, waiting up to {@code grace} for threads and descriptors to
   * be released (pools let idle threads go, sockets close asynchronously).
   *
   * @param allowedThreads threads that may outlive the work (shared event loops made once per JVM)
   * @param grace how long to wait for threads and descriptors
   * @param fdSlack descriptors more than at the snapshot that are not a leak
   * @param heapSlack heap bytes more than at the snapshot that are not a leak
   * @return the figures
   * @throws InterruptedException if interrupted while waiting
   */
  public Result compare(Predicate<Thread> allowedThreads, Duration grace, int fdSlack, long heapSlack)
      throws InterruptedException {
    List<String> leaked = ThreadLeaks.leakedSince(threads, allowedThreads, grace);
    long end = System.nanoTime() + grace.toNanos();
    int nowFds = openFileDescriptors();
    while (fds >= 0 && nowFds - fds > fdSlack && System.nanoTime() < end) {
      Thread.sleep(50);
      nowFds = openFileDescriptors();
    }
    long nowHeap = heapAfterGc();
    return new Result(leaked, fds < 0 ? 0 : nowFds - fds, nowHeap - heap, fdSlack, heapSlack);
  }
}
