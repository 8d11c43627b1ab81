package dev.tern.rpc.spi;

import io.grpc.Status;
import java.nio.ByteBuffer;

/** The client's end of one call's stream. Methods may be called from any thread. */
public interface ClientStream {

  /**
   * Sends one request message (whole, uncompressed). Ownership of {@code message} passes to the
   * transport. Writing after {@link #halfClose()} or after the stream closed is ignored (the
   * message is dropped).
   */
  void writeMessage(ByteBuffer message);

  /** Pushes buffered messages to the wire; transports that never buffer may do nothing. */
  void flush();

  /** Asks for {@code numMessages} more response messages ({@code > 0}). */
  void request(int numMessages);

  /** No more request messages will be written. */
  void halfClose();

  /**
   * Ends the call now: unsent data is dropped and the server is told. The listener's {@code
   * onClose} is called with {@code status} (a {@code CANCELLED} or {@code DEADLINE_EXCEEDED}
   * status) unless the stream had already closed. Idempotent.
   */
  void cancel(Status status);

  /** True when a write now would not have to wait for flow-control credit. */
  boolean isReady();
}
