package dev.tern.transport.bridge;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * One call's server stream over a grpc-java {@link ServerCall}. Calls into grpc-java are made under
 * this object's lock (grpc-java server calls are not thread-safe); the listener is never called
 * under it.
 */
public final class GrpcServerStream extends ServerCall.Listener<ByteBuffer> implements ServerStream {
  /** A client reset this close to the call's deadline is taken as the deadline passing. */
  private static final long DEADLINE_SLACK_MILLIS = 250;

  private final ServerCall<ByteBuffer, ByteBuffer> call;
  private final Context context;
  private final Owner owner;
  private final String transport;
  private ServerStreamListener listener;
  private boolean headersSent;
  private boolean closed;
  private final ReadyGate ready = new ReadyGate();
  private volatile Status cancelStatus;

  /** What the stream tells its transport. */
  public interface Owner {
    /** The stream has closed, after its listener heard it. */
    void streamClosed(GrpcServerStream stream);
  }

  /**
   * A stream for {@code call}.
   *
   * @param call grpc-java's call, with pass-through marshallers
   * @param context the call's context (its deadline and cancellation)
   * @param owner told when the stream has closed, after the listener heard it
   * @param transport the transport's name, for the stream's {@link ConnectionInfo}
   */
  public GrpcServerStream(ServerCall<ByteBuffer, ByteBuffer> call, Context context, Owner owner,
      String transport) {
    this.transport = transport;
    this.call = call;
    this.context = context;
    this.owner = owner;
  }

  /** Sets the call layer's listener, before grpc-java delivers anything. */
  public void setListener(ServerStreamListener listener) {
    this.listener = listener;
  }

  @Override
  public synchronized void writeHeaders(Metadata headers) {
    if (closed || headersSent) {
      return;
    }
    headersSent = true;
    call.sendHeaders(headers);
  }

  @Override
  public synchronized void writeMessage(ByteBuffer message) {
    if (closed) {
      return;
    }
    if (!headersSent) {
      headersSent = true;
      call.sendHeaders(new Metadata()); // grpc-java wants headers before the first message
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
  public synchronized void close(Status status, Metadata trailers) {
    if (closed) {
      return;
    }
    closed = true;
    call.close(status, trailers == null ? new Metadata() : trailers);
  }

  /**
   * grpc-java gives servers no public way to reset a stream, so a cancel ends the call with {@code
   * status} at once; data already queued ahead of it may still reach the client.
   */
  @Override
  public synchronized void cancel(Status status) {
    if (closed) {
      return;
    }
    closed = true;
    cancelStatus = status;
    call.close(status, new Metadata());
  }

  @Override
  public synchronized boolean isReady() {
    return !closed && (call.isReady() || ready.beforeAllocation());
  }

  @Override
  public synchronized void setMessageCompression(String encoding) {
    if (encoding == null) {
      throw new IllegalArgumentException("encoding must not be null");
    }
    if (headersSent) {
      throw new IllegalStateException("setMessageCompression(" + encoding + ") after the headers were sent");
    }
    try {
      call.setCompression(encoding);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("encoding: no compressor for '" + encoding + "'", e);
    }
  }

  @Override
  public boolean receivedAsEarlyData() {
    return false; // TCP+TLS here never accepts early data
  }

  @Override
  public Attributes attributes() {
    return ConnectionEvents.forCalls(call.getAttributes());
  }

  @Override
  public ConnectionInfo connectionInfo() {
    Attributes attributes = call.getAttributes();
    return ConnectionInfo.builder(transport)
        .localAddress(attributes.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR))
        .remoteAddress(attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR))
        .sslSession(attributes.get(Grpc.TRANSPORT_ATTR_SSL_SESSION))
        .build();
  }

  // ---- grpc-java events, serialised by grpc-java ----

  @Override
  public void onMessage(ByteBuffer message) {
    listener.onMessage(message);
  }

  @Override
  public void onHalfClose() {
    listener.onHalfClose();
  }

  @Override
  public void onReady() {
    synchronized (this) {
      ready.allocated();
    }
    listener.onReady();
  }

  @Override
  public void onComplete() {
    Status cancel = cancelStatus;
    try {
      if (cancel != null) {
        listener.onCancel(cancel);
      } else {
        listener.onComplete();
      }
    } finally {
      owner.streamClosed(this); // after the listener: the server terminates once every stream has closed
    }
  }

  @Override
  public void onCancel() {
    Status cancel = cancelStatus;
    if (cancel == null) {
      cancel = Contexts.statusFromCancelled(context);
    }
    if (cancel == null) {
      cancel = Status.CANCELLED.withDescription("the client cancelled the call or the connection was lost");
    }
    Deadline deadline = context.getDeadline();
    if (cancel.getCode() == Status.Code.CANCELLED && deadline != null
        && deadline.timeRemaining(TimeUnit.MILLISECONDS) < DEADLINE_SLACK_MILLIS) {
      // HTTP/2 resets carry no reason. The server's copy of the deadline started when the headers
      // arrived, so the client's reset for that same deadline lands a little before it expires here.
      cancel = Status.DEADLINE_EXCEEDED.withDescription("the call's deadline passed");
    }
    try {
      listener.onCancel(cancel);
    } finally {
      owner.streamClosed(this);
    }
  }
}
