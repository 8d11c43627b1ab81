package dev.tern.rpc;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Named daemon threads for the executors a channel or server owns (and shuts down). */
final class DaemonThreads {
  private DaemonThreads() {}

  static ThreadFactory factory(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** A pool that grows on demand; idle threads exit after a few seconds. */
  static ExecutorService cachedPool(String prefix) {
    return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS, new SynchronousQueue<>(),
        factory(prefix));
  }
}
