package dev.tern.rpc.spi;

import dev.tern.rpc.ConnectionInfo;
import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;

/** The server's end of one call's stream. Methods may be called from any thread. */
public interface ServerStream {

  /**
   * Sends the response headers; at most once, before any message.
   *
   * @param headers the application's response headers (the transport adds its own, such as the
   *     message encoding); may be empty, not null. Ownership passes to the transport.
   */
  void writeHeaders(Metadata headers);

  /**
   * Sends one response message (whole, uncompressed; the transport compresses it if {@link
   * #setMessageCompression} chose an encoding). Ownership of {@code message} passes to the
   * transport.
   *
   * @param message the serialised message, from its position to its limit; not kept by the
   *     caller afterwards
   */
  void writeMessage(ByteBuffer message);

  /** Pushes buffered messages to the wire. */
  void flush();

  /**
   * Asks for {@code numMessages} more request messages: the transport delivers that many more to
   * {@link ServerStreamListener#onMessage} and holds the rest back (flow control).
   *
   * @param numMessages how many more messages to deliver; greater than 0
   */
  void request(int numMessages);

  /**
   * Ends the call with {@code status} and {@code trailers}, after every message written before it.
   * The listener's {@link ServerStreamListener#onComplete} or {@link ServerStreamListener#onCancel}
   * follows.
   *
   * @param status the call's outcome, which the client sees (its description included)
   * @param trailers the application's trailers; may be empty, not null. Ownership passes to the
   *     transport.
   */
  void close(Status status, Metadata trailers);

  /**
   * Aborts the stream; the client must see {@code status}, so a transport that can still send
   * trailers ends the stream with them (as TCP and QUIC do), and one that cannot resets it. Data
   * the application wrote may or may not be delivered first. Idempotent.
   *
   * @param status why the stream was aborted; not OK
   */
  void cancel(Status status);

  /**
   * Whether a write now would not have to wait for flow-control credit; a handler that writes
   * while this is false makes the transport buffer the message.
   *
   * @return true if a message written now can go out without waiting for the client
   */
  boolean isReady();

  /**
   * Chooses the encoding of response messages ({@code "gzip"}, {@code "identity"}); must be one the
   * client accepts ({@link RequestHeaders#acceptedMessageEncodings()}). Before {@link
   * #writeHeaders}.
   *
   * @param encoding the name of an encoding the client accepts, or {@code "identity"} for none
   */
  void setMessageCompression(String encoding);

  /**
   * Whether this stream's request arrived as 0-RTT early data, which an attacker may have
   * replayed; a handler of a non-idempotent method may refuse it.
   *
   * @return true if the request arrived before the handshake completed
   */
  boolean receivedAsEarlyData();

  /**
   * What the call's connection is.
   *
   * @return a snapshot of the connection's transport, version and counters, taken now; never
   *     null
   */
  ConnectionInfo connectionInfo();

  /**
   * The attributes of this stream's connection: what {@link
   * ServerTransportListener.ConnectionListener#connectionReady} returned for it, which the call
   * layer gives the call as {@code ServerCall.getAttributes()}.
   *
   * @return the ready connection's attributes; null when the transport reports no connection
   *     events (the default; the call layer then builds them from {@link #connectionInfo()}) or
   *     when the stream arrived as 0-RTT early data before its connection was ready
   */
  default Attributes attributes() {
    return null;
  }
}
