package dev.tern.transport.bridge;

import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;

/**
 * One call's client stream: a grpc-java {@link ClientCall} with pass-through messages. grpc-java
 * calls are not thread-safe, so every call into it is made under this object's lock (never held
 * while the listener runs).
 */
public final class GrpcClientStream extends ClientCall.Listener<ByteBuffer> implements ClientStream {
  private final ClientCall<ByteBuffer, ByteBuffer> call;
  private final ClientStreamListener listener;
  private final Owner owner;
  private boolean halfClosed;
  private boolean cancelled;
  private final ReadyGate ready = new ReadyGate();
  private volatile Status cancelStatus;

  /** What the stream tells its transport. */
  public interface Owner {
    /** The call's response headers came: its attributes now name the connection's addresses. */
    void learnAddresses(io.grpc.Attributes callAttributes);

    /** The stream has closed, after its listener heard it. */
    void streamClosed(GrpcClientStream stream);
  }

  /**
   * A stream for {@code call}, not started.
   *
   * @param call grpc-java's call, with pass-through marshallers
   * @param listener the call layer's listener
   * @param owner the transport
   */
  public GrpcClientStream(ClientCall<ByteBuffer, ByteBuffer> call, ClientStreamListener listener, Owner owner) {
    this.call = call;
    this.listener = listener;
    this.owner = owner;
  }

  /** Starts the call with {@code headers}. */
  public synchronized void start(Metadata headers) {
    call.start(this, headers);
  }

  @Override
  public synchronized void writeMessage(ByteBuffer message) {
    if (halfClosed || cancelled) {
      return; // SPI: writes after half-close or close are dropped
    }
    ready.wrote(message.remaining());
    call.sendMessage(message);
  }

  @Override
  public void flush() {
    // grpc-java flushes every message it is given.
  }

  @Override
  public synchronized void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be > 0, was " + numMessages);
    }
    call.request(numMessages);
  }

  @Override
  public synchronized void halfClose() {
    if (halfClosed || cancelled) {
      return;
    }
    halfClosed = true;
    call.halfClose();
  }

  @Override
  public void cancel(Status status) {
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      cancelStatus = status;
      call.cancel(status.getDescription() == null ? status.getCode().toString() : status.getDescription(),
          status.getCause());
    }
  }

  @Override
  public synchronized boolean isReady() {
    return !cancelled && !halfClosed && (call.isReady() || ready.beforeAllocation());
  }

  // ---- grpc-java events, serialised by grpc-java ----

  @Override
  public void onHeaders(Metadata headers) {
    owner.learnAddresses(call.getAttributes());
    listener.onHeaders(headers);
  }

  @Override
  public void onMessage(ByteBuffer message) {
    listener.onMessage(message);
  }

  @Override
  public void onReady() {
    synchronized (this) {
      ready.allocated();
    }
    listener.onReady();
  }

  @Override
  public void onClose(Status status, Metadata trailers) {
    Status cancel = cancelStatus;
    // grpc-java reports its own CANCELLED for a local cancel; the SPI promises the caller's status.
    if (cancel != null && status.getCode() == Status.Code.CANCELLED) {
      status = cancel;
    }
    try {
      listener.onClose(status, trailers);
    } finally {
      owner.streamClosed(this); // after onClose: the transport terminates only once every stream has closed
    }
  }
}
