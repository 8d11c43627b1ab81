package dev.tern.rpc.spi;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs tasks one at a time, in submission order, on a delegate executor: the way the call layer
 * runs one call's callbacks on the application's executor, and the way a transport can call one
 * stream's listener serially without a thread of its own.
 *
 * <p>A task that throws is logged and does not stop the ones after it. If the delegate rejects
 * the drain, the tasks run on the submitting thread instead of being lost.
 */
public final class SerializingExecutor implements Executor {
  private static final Logger log = Logger.getLogger(SerializingExecutor.class.getName());

  private final Executor delegate;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean();
  private final Runnable drain = this::drain;

  /**
   * A serializing view of {@code delegate}.
   *
   * @param delegate the executor the tasks run on, one at a time; not null
   * @throws NullPointerException if {@code delegate} is null
   */
  public SerializingExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** Queues {@code task}; it runs after every task submitted before it. */
  @Override
  public void execute(Runnable task) {
    tasks.add(Objects.requireNonNull(task, "task"));
    schedule();
  }

  private void schedule() {
    if (running.compareAndSet(false, true)) {
      try {
        delegate.execute(drain);
      } catch (RuntimeException rejected) {
        // The delegate is shutting down; run here rather than drop callbacks a listener waits for.
        drain();
      }
    }
  }

  private void drain() {
    try {
      Runnable task;
      while ((task = tasks.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException | Error e) {
          log.log(Level.WARNING, "task threw; continuing with the next one", e);
        }
      }
    } finally {
      running.set(false);
    }
    if (!tasks.isEmpty()) {
      schedule();
    }
  }
}
