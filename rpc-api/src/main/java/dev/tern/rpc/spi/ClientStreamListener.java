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

  /**
   * The call ended before the server processed any of it, so it is safe to send again on another
   * connection: the transport never sent the stream (the server's GOAWAY arrived while the call
   * waited for a stream slot) or the server refused it unprocessed (HTTP/3 H3_REQUEST_REJECTED,
   * RFC 9114 §4.1.1; a stream at or above a GOAWAY's identifier, RFC 9114 §5.2). Called instead
   * of {@link #onClose}, exactly once, and only if no response headers or message were delivered;
   * no other callback follows. The call layer retries such a call once, transparently, as
   * grpc-java does; a listener that cannot retry treats it as {@link #onClose} with empty trailers,
   * which is what the default does.
   *
   * @param status why the stream was not processed, UNAVAILABLE
   */
  default void onRefused(Status status) {
    onClose(status, new Metadata());
  }

  /**
   * The stream never left this client: the transport was shut down, or the server's GOAWAY came,
   * before any of it was sent (grpc-java's {@code RpcProgress.MISCARRIED}). Like {@link
   * #onRefused}, called instead of {@link #onClose}, exactly once, and no other callback follows;
   * but since the server cannot have seen the call, the call layer sends it again without the
   * once-only limit of a refusal (grpc-java bounds such local replays at 1,000 per call). The
   * default treats it as {@link #onRefused}.
   *
   * @param status why the stream was not sent, UNAVAILABLE
   */
  default void onNotSent(Status status) {
    onRefused(status);
  }
}
