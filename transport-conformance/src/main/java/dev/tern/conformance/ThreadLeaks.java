package dev.tern.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/** Thread snapshots: which threads started after a point and are still alive. */
public final class ThreadLeaks {
  private static final List<String> JVM_THREADS = List.of("Reference Handler", "Finalizer",
      "Signal Dispatcher", "Common-Cleaner", "Attach Listener", "process reaper", "surefire-",
      "ForkJoinPool.commonPool", "Notification Thread", "JFR ", "junit-");

  private ThreadLeaks() {}

  public static Set<Thread> snapshot() {
    return Thread.getAllStackTraces().keySet();
  }

  /**
   * Threads alive now that were not in {@code before} and that {@code allowed} does not excuse,
   * waiting up to {@code grace} for them to end (pools let idle threads go after a while).
   */
  public static List<String> leakedSince(Set<Thread> before, Predicate<Thread> allowed, Duration grace)
      throws InterruptedException {
    long deadline = System.nanoTime() + grace.toNanos();
    while (true) {
      List<Thread> leaked = new ArrayList<>();
      for (Thread t : snapshot()) {
        if (t.isAlive() && !before.contains(t) && !isJvmThread(t) && !allowed.test(t)) {
          leaked.add(t);
        }
      }
      if (leaked.isEmpty()) {
        return List.of();
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        List<String> names = new ArrayList<>();
        leaked.forEach(t -> names.add(t.getName() + " (" + t.getState() + ")"));
        return names;
      }
      // Wait on the thread itself ending, not on a clock.
      leaked.get(0).join(Math.max(1, Math.min(left / 1_000_000, 200)));
    }
  }

  private static boolean isJvmThread(Thread t) {
    for (String prefix : JVM_THREADS) {
      if (t.getName().startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
