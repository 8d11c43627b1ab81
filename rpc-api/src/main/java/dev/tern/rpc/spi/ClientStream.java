package dev.tern.rpc.spi;

import io.grpc.Status;
import java.nio.ByteBuffer;

/** The client's end of one call's stream. Methods may be called from any thread. */
public interface ClientStream {

  /**
   * Sends one request message (whole, uncompressed). Ownership of {@code message} passes to the
   * transport. Writing after {@link #halfClose()} or after the stream closed is ignored (the
   * message is dropped).
   *
   * @param message the serialised message, from its position to its limit; not kept by the
   *     caller afterwards
   */
  void writeMessage(ByteBuffer message);

  /** Pushes buffered messages to the wire; transports that never buffer may do nothing. */
  void flush();

  /**
   * Asks for {@code numMessages} more response messages: the transport delivers that many more to
   * {@link ClientStreamListener#onMessage} and holds the rest back (flow control).
   *
   * @param numMessages how many more messages to deliver; greater than 0
   */
  void request(int numMessages);

  /** No more request messages will be written. */
  void halfClose();

  /**
   * Ends the call now: unsent data is dropped and the server is told. The listener's {@code
   * onClose} is called with {@code status} (a {@code CANCELLED} or {@code DEADLINE_EXCEEDED}
   * status) unless the stream had already closed. Idempotent.
   *
   * @param status why the call ends, as the listener will see it; not OK
   */
  void cancel(Status status);

  /**
   * Whether a write now would not have to wait for flow-control credit; when it turns true,
   * {@link ClientStreamListener#onReady()} is called.
   *
   * @return true if a message written now can go out without waiting for the server
   */
  boolean isReady();
}
