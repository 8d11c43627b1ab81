package dev.tern.transport.bridge;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Waits for grpc-java channels and servers to terminate and then reports it. grpc-java offers no
 * termination callback, only {@code awaitTermination}, so a daemon thread does the waiting.
 */
public final class Termination {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ThreadFactory FACTORY = r -> {
    Thread t = new Thread(r, "tern-grpc-termination-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  };
  private static final ExecutorService WAITERS = Executors.newCachedThreadPool(FACTORY);

  /** Something that can be waited on until it has terminated. */
  public interface Awaitable {
    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException;
  }

  private Termination() {}

  /** Runs {@code then} on a daemon thread once {@code target} has terminated. */
  public static void whenTerminated(Awaitable target, Runnable then) {
    WAITERS.execute(() -> {
      try {
        while (!target.awaitTermination(1, TimeUnit.MINUTES)) {
          // keep waiting: open calls may legitimately run for long
        }
        then.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }
}
