package dev.tern.transport.udp.stream;

/**
 * Chooses which stream's data goes into the next packet. The connection tells it when a stream
 * has something to send ({@link #markReady}); it asks {@link #next} while building packets and
 * reports what it did with {@link #onEmitted}. An implementation must not allocate per call.
 *
 * <p>Retransmitted data stays with its stream, so it keeps that stream's priority.
 */
public interface SendScheduler {
  /** {@code stream} has data (fresh, lost, or a FIN) to send. Idempotent. */
  void markReady(Stream stream);

  /** {@code stream} is gone or has nothing more to send for now. */
  void remove(Stream stream);

  /** The stream whose data should go next, or null if none is ready. */
  Stream next();

  /**
   * A frame of {@code stream} was written; {@code stillReady} says whether it has more to send
   * (if not, the scheduler drops it until marked ready again).
   */
  void onEmitted(Stream stream, boolean stillReady);

  /** Whether no stream is ready. */
  boolean isEmpty();

  /** {@code stream}'s priority changed while it was ready; refile it. */
  default void onPriorityChanged(Stream stream) {}

  /**
   * How much of the connection's flow-control credit {@code stream} may spend on fresh data; a
   * priority scheduler keeps a reserve for urgent streams so bulk data cannot exhaust the
   * connection window ahead of them (no priority inversion through flow control).
   */
  default long creditFor(Stream stream, long connectionCredit) {
    return connectionCredit;
  }
}
