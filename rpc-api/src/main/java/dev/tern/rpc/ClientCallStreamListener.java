package dev.tern.rpc;

import dev.tern.rpc.spi.ClientStreamListener;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.Executor;

/**
 * Carries a client stream's events to the application's {@link ClientCall.Listener} on the call's
 * serializing executor: unmarshals responses, enforces the inbound size limit, records the
 * protocol version the server chose, and makes sure the listener hears exactly one close.
 */
final class ClientCallStreamListener<RespT> implements ClientStreamListener {
  /** What the listener needs from its call. */
  interface CallHooks {
    /** Cancels the call's stream with {@code status} (the listener then closes with it). */
    void cancelStream(Status status);

    /**
     * The call ended with {@code status}: release its deadline timer and context listener, and
     * count it.
     */
    void closed(Status status);

    /** The connection the call runs on, once known; null before. */
    Connection connection();

    /**
     * The status the application hears for {@code status} from the transport: as grpc-java's
     * client does, a CANCELLED or DEADLINE_EXCEEDED close once the call's own deadline has passed
     * becomes the call's own deadline status (the server's deadline fired first, or its reset
     * raced the client's timer).
     */
    Status statusFromTransport(Status status);

    /** A response arrived: the call can no longer be replayed elsewhere. */
    void committed();

    /**
     * The transport refused the stream unprocessed ({@link ClientStreamListener#onRefused}): retry
     * the call on another stream, or close it with {@code status}.
     */
    void refused(Status status);

    /**
     * The stream never left this client ({@link ClientStreamListener#onNotSent}): retry the call
     * on another stream, or close it with {@code status}.
     */
    void notSent(Status status);
  }

  private final MethodDescriptor<?, RespT> method;
  private final Executor callExecutor;
  private final int maxInboundMessageSize;
  private final CallHooks hooks;
  private volatile ClientCall.Listener<RespT> listener;
  private volatile ClientTracers tracers;
  private volatile boolean closed;

  ClientCallStreamListener(MethodDescriptor<?, RespT> method, Executor callExecutor,
      int maxInboundMessageSize, CallHooks hooks) {
    this.method = method;
    this.callExecutor = callExecutor;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.hooks = hooks;
  }

  void setListener(ClientCall.Listener<RespT> listener, ClientTracers tracers) {
    this.listener = listener;
    this.tracers = tracers;
  }

  /** The tracers of a new attempt of the call (a transparent retry). */
  void setTracers(ClientTracers tracers) {
    this.tracers = tracers;
  }

  boolean isClosed() {
    return closed;
  }

  @Override
  public void onHeaders(Metadata headers) {
    hooks.committed();
    Connection c = hooks.connection();
    String advertised = c == null ? null : headers.get(AltSvc.KEY);
    if (advertised != null) {
      c.advertised(advertised);
    }
    if (c != null && c.versionInHeaders()) {
      String selected = headers.get(ProtocolVersions.SELECTED_KEY);
      if (selected == null) {
        // A stock gRPC server states no version: it speaks the base version.
        c.recordSelectedVersion(ProtocolVersions.BASE_VERSION);
      } else {
        try {
          c.recordSelectedVersion(Integer.parseInt(selected.trim()));
        } catch (NumberFormatException e) {
          hooks.cancelStream(Status.INTERNAL.withDescription("server sent a malformed "
              + ProtocolVersions.SELECTED_HEADER + ": '" + selected + "'"));
          return;
        }
      }
    }
    callExecutor.execute(() -> {
      if (!closed) {
        tracers.inboundHeaders(headers);
        listener.onHeaders(headers);
      }
    });
  }

  @Override
  public void onMessage(ByteBuffer message) {
    hooks.committed();
    if (message.remaining() > maxInboundMessageSize) {
      hooks.cancelStream(Status.RESOURCE_EXHAUSTED.withDescription(String.format(Locale.ROOT,
          "gRPC message exceeds maximum size %d: %d", maxInboundMessageSize, message.remaining())));
      return;
    }
    callExecutor.execute(() -> {
      if (closed) {
        return;
      }
      tracers.inboundMessage(message.remaining());
      RespT value;
      try (InputStream in = new ByteBufferInputStream(message)) {
        value = method.parseResponse(in);
      } catch (Exception | Error e) {
        hooks.cancelStream(Status.INTERNAL.withDescription("failed to parse the response of "
            + method.getFullMethodName()).withCause(e));
        return;
      }
      listener.onMessage(value);
    });
  }

  @Override
  public void onReady() {
    callExecutor.execute(() -> {
      if (!closed) {
        listener.onReady();
      }
    });
  }

  @Override
  public void onClose(Status status, Metadata trailers) {
    Status s = hooks.statusFromTransport(status);
    close(s, s == status ? trailers : new Metadata());
  }

  @Override
  public void onRefused(Status status) {
    hooks.refused(status);
  }

  @Override
  public void onNotSent(Status status) {
    hooks.notSent(status);
  }

  /** Closes the call with a status of the call layer's own (a cancel, a local failure). */
  void close(Status status, Metadata trailers) {
    callExecutor.execute(() -> {
      if (closed) {
        return;
      }
      closed = true;
      hooks.closed(status);
      tracers.closed(status, trailers);
      listener.onClose(status, trailers);
    });
  }
}
