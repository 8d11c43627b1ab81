package dev.tern.rpc.inprocess;

import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that deliver in-process events: a pool that grows on demand and whose threads exit
 * after a second idle, so nothing lingers once the transports are gone.
 */
final class InProcessExecutor {
  private static final AtomicInteger COUNT = new AtomicInteger();
  private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
      1, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
        Thread t = new Thread(r, "tern-inprocess-" + COUNT.incrementAndGet());
        t.setDaemon(true);
        return t;
      });

  private InProcessExecutor() {}

  static Executor get() {
    return POOL;
  }
}
