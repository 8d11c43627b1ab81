package dev.tern.rpc.spi;

import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;

/** Events of one client stream, called serially and without blocking. */
public interface ClientStreamListener {

  /** The server's response headers (at most once, before any message). */
  void onHeaders(Metadata headers);

  /** One response message, whole and decompressed; ownership passes to the listener. */
  void onMessage(ByteBuffer message);

  /** {@link ClientStream#isReady()} turned true. */
  void onReady();

  /**
   * The call ended: the server's status and trailers, or a transport-made status (cancelled, the
   * connection lost, a protocol error) with empty or partial trailers. Called exactly once; no
   * other callback follows.
   */
  void onClose(Status status, Metadata trailers);
}
