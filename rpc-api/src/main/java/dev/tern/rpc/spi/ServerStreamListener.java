package dev.tern.rpc.spi;

import io.grpc.Status;
import java.nio.ByteBuffer;

/** Events of one server stream, called serially and without blocking. */
public interface ServerStreamListener {

  /**
   * One request message, whole and decompressed; ownership passes to the listener.
   *
   * @param message the message, from its position to its limit
   */
  void onMessage(ByteBuffer message);

  /** The client will send no more messages. */
  void onHalfClose();

  /** {@link ServerStream#isReady()} turned true. */
  void onReady();

  /** The stream closed after {@link ServerStream#close} was fully sent. Ends the stream. */
  void onComplete();

  /**
   * The stream ended abnormally: the client cancelled, its deadline passed, or the connection
   * broke ({@code status} says which). Ends the stream; nothing follows.
   *
   * @param status why the stream ended: CANCELLED, DEADLINE_EXCEEDED or UNAVAILABLE, for example,
   *     with a description
   */
  void onCancel(Status status);
}
