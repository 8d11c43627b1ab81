package dev.tern.transport.udp.stream;

/**
 * What the transport glue hears about streams. Called on the connection's thread from inside
 * {@code onDatagram}/{@code onTimeout}; implementations must not call back into the connection
 * re-entrantly except through the stream read/write methods.
 */
public interface StreamListener {
  /** The peer opened {@code stream} (its first frame arrived). */
  default void onStreamOpened(Stream stream) {}

  /** {@code stream} has new in-order bytes, or its end, to read. */
  default void onReadable(Stream stream) {}

  /** {@code stream}'s send buffer has room again. */
  default void onWritable(Stream stream) {}

  /**
   * The peer reset {@code stream} (RESET_STREAM) with {@code code}. Being told is the receiving
   * half's end ("Reset Read", RFC 9000 §3.2): nothing more need be read from it for the stream to
   * close.
   */
  default void onReset(Stream stream, long code) {}

  /** The peer asked us to stop sending on {@code stream} (STOP_SENDING) with {@code code}. */
  default void onStopSending(Stream stream, long code) {}

  /**
   * Both halves of {@code stream} are finished and its state was dropped. The object is reused
   * for a later stream once this returns: keep its {@link Stream#id()}, not the object.
   */
  default void onClosed(Stream stream) {}
}
