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
}
