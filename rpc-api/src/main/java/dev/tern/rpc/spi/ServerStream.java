package dev.tern.rpc.spi;

import dev.tern.rpc.ConnectionInfo;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;

/** The server's end of one call's stream. Methods may be called from any thread. */
public interface ServerStream {

  /** Sends the response headers; at most once, before any message. */
  void writeHeaders(Metadata headers);

  /**
   * Sends one response message (whole, uncompressed; the transport compresses it if {@link
   * #setMessageCompression} chose an encoding). Ownership of {@code message} passes to the
   * transport.
   */
  void writeMessage(ByteBuffer message);

  /** Pushes buffered messages to the wire. */
  void flush();

  /** Asks for {@code numMessages} more request messages ({@code > 0}). */
  void request(int numMessages);

  /**
   * Ends the call with {@code status} and {@code trailers}, after every message written before it.
   * The listener's {@link ServerStreamListener#onComplete} or {@link ServerStreamListener#onCancel}
   * follows.
   */
  void close(Status status, Metadata trailers);

  /** Aborts the stream (the client sees {@code status}); unsent data is dropped. Idempotent. */
  void cancel(Status status);

  /** True when a write now would not have to wait for flow-control credit. */
  boolean isReady();

  /**
   * Chooses the encoding of response messages ({@code "gzip"}, {@code "identity"}); must be one the
   * client accepts ({@link RequestHeaders#acceptedMessageEncodings()}). Before {@link
   * #writeHeaders}.
   */
  void setMessageCompression(String encoding);

  /** True if this stream's request arrived as 0-RTT early data. */
  boolean receivedAsEarlyData();

  /** What the call's connection is. */
  ConnectionInfo connectionInfo();
}
