package dev.tern.rpc.spi;

import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;

/** Events of one client stream, called serially and without blocking. */
public interface ClientStreamListener {

  /**
   * The server's response headers (at most once, before any message).
   *
   * @param headers the application's headers; the listener owns them
   */
  void onHeaders(Metadata headers);

  /**
   * One response message, whole and decompressed; ownership passes to the listener.
   *
   * @param message the message, from its position to its limit
   */
  void onMessage(ByteBuffer message);

  /** {@link ClientStream#isReady()} turned true. */
  void onReady();

  /**
   * The call ended: the server's status and trailers, or a transport-made status (cancelled, the
   * connection lost, a protocol error) with empty or partial trailers. Called exactly once; no
   * other callback follows.
   *
   * @param status the call's outcome
   * @param trailers the server's trailers; empty, not null, when it sent none
   */
  void onClose(Status status, Metadata trailers);
}
