package dev.tern.rpc.spi;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Counts one kind of per-connection event (a malformed connection, a refused handshake) and logs
 * it at {@code FINE} at most once per interval, with the count: a peer that repeats the event a
 * million times costs a counter increment each time, not a million log lines. Thread-safe.
 */
public final class ThrottledLog {
  /** The interval between two lines of one kind unless given otherwise: 10 seconds. */
  public static final long DEFAULT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final Logger logger;
  private final String what;
  private final long intervalNanos;
  private final AtomicLong count = new AtomicLong();
  private final AtomicLong lastLineNanos = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);
  private final AtomicLong countAtLastLine = new AtomicLong();

  /**
   * A counter for {@code what}, logged to {@code logger}.
   *
   * @param logger where the lines go, at FINE; not null
   * @param what what one event is, such as {@code "malformed tcp connection"}; not null
   * @param intervalNanos the least time between two lines, in nanoseconds, 0 or more
   * @throws NullPointerException if {@code logger} or {@code what} is null
   * @throws IllegalArgumentException if {@code intervalNanos} is negative
   */
  public ThrottledLog(Logger logger, String what, long intervalNanos) {
    this.logger = java.util.Objects.requireNonNull(logger, "logger");
    this.what = java.util.Objects.requireNonNull(what, "what");
    if (intervalNanos < 0) {
      throw new IllegalArgumentException("intervalNanos must be >= 0, was " + intervalNanos);
    }
    this.intervalNanos = intervalNanos;
  }

  /**
   * Counts one event; logs it at FINE (with {@code detail} and the count) if no line of this kind
   * was written in the last interval.
   *
   * @param detail what to say about this event; may be null. Built by the caller only when
   *     {@link #wouldLog()} says a line may be written, if building it costs anything.
   */
  public void event(String detail) {
    long n = count.incrementAndGet();
    long now = System.nanoTime();
    long last = lastLineNanos.get();
    if (now - last < intervalNanos || !lastLineNanos.compareAndSet(last, now)) {
      return;
    }
    long before = countAtLastLine.getAndSet(n);
    if (logger.isLoggable(Level.FINE)) {
      logger.log(Level.FINE, "{0}{1} ({2} so far, {3} since the last line)",
          new Object[] {what, detail == null ? "" : ": " + detail, n, n - before});
    }
  }

  /**
   * Counts one event without detail; see {@link #event(String)}.
   */
  public void event() {
    event(null);
  }

  /**
   * Whether an event now could write a line (FINE is on and the interval has passed): lets a
   * caller skip building an expensive detail.
   *
   * @return true if {@link #event(String)} may log now
   */
  public boolean wouldLog() {
    return logger.isLoggable(Level.FINE) && System.nanoTime() - lastLineNanos.get() >= intervalNanos;
  }

  /**
   * Events counted so far.
   *
   * @return the count since this object was made
   */
  public long count() {
    return count.get();
  }

  @Override
  public String toString() {
    return what + ": " + count.get();
  }
}
