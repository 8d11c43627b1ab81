package dev.tern.rpc;

import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import io.grpc.Context;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Carries a server stream's events to the application's {@link ServerCall.Listener} on the call's
 * serializing executor, inside the call's {@link Context}; reports them to the stream tracers.
 */
final class ServerCallStreamListener<ReqT> implements ServerStreamListener {
  /**
   * Where a handler's exception is logged: as grpc-java's server, which logs it with its stack trace
   * at SEVERE (its {@code SerializingExecutor}: "Exception while executing runnable ...") and ends
   * the call with UNKNOWN.
   */
  static final Logger HANDLER_ERRORS = Logger.getLogger(TernServer.class.getName());

  private final ServerStream stream;
  private final MethodDescriptor<ReqT, ?> method;
  private final TernServerCall<ReqT, ?> call;
  private final Context.CancellableContext context;
  private final Executor executor;
  private final List<ServerStreamTracer> tracers;
  private final int maxInboundMessageSize;
  private ServerCall.Listener<ReqT> listener;
  private int inboundSeq;
  private boolean done;

  ServerCallStreamListener(ServerStream stream, MethodDescriptor<ReqT, ?> method,
      TernServerCall<ReqT, ?> call, Context.CancellableContext context, Executor executor,
      List<ServerStreamTracer> tracers, int maxInboundMessageSize) {
    this.stream = stream;
    this.method = method;
    this.call = call;
    this.context = context;
    this.executor = executor;
    this.tracers = tracers;
    this.maxInboundMessageSize = maxInboundMessageSize;
  }

  /** Runs on the call's executor: the application's listener, once its handler returned it. */
  void setListener(ServerCall.Listener<ReqT> listener) {
    this.listener = listener;
  }

  Executor executor() {
    return executor;
  }

  @Override
  public void onMessage(ByteBuffer message) {
    int size = message.remaining();
    if (size > maxInboundMessageSize) {
      stream.cancel(Status.RESOURCE_EXHAUSTED.withDescription(String.format(Locale.ROOT,
          "gRPC message exceeds maximum size %d: %d", maxInboundMessageSize, size)));
      return;
    }
    executor.execute(() -> {
      if (done) {
        return;
      }
      int seq = inboundSeq++;
      for (ServerStreamTracer t : tracers) {
        t.inboundMessage(seq);
        t.inboundWireSize(size);
        t.inboundUncompressedSize(size);
        t.inboundMessageRead(seq, size, size);
      }
      ReqT request;
      try (InputStream in = new ByteBufferInputStream(message)) {
        request = method.parseRequest(in);
      } catch (Exception | Error e) {
        stream.cancel(Status.INTERNAL.withDescription("failed to parse the request of "
            + method.getFullMethodName()).withCause(e));
        return;
      }
      deliver("onMessage", () -> listener.onMessage(request));
    });
  }

  @Override
  public void onHalfClose() {
    executor.execute(() -> {
      if (!done) {
        deliver("onHalfClose", () -> listener.onHalfClose());
      }
    });
  }

  @Override
  public void onReady() {
    executor.execute(() -> {
      if (!done) {
        deliver("onReady", () -> listener.onReady());
      }
    });
  }

  @Override
  public void onComplete() {
    executor.execute(() -> {
      if (done) {
        return;
      }
      done = true;
      call.closeTracers(call.closeStatus() == null ? Status.OK : call.closeStatus());
      deliver("onComplete", () -> listener.onComplete());
      context.cancel(null);
    });
  }

  @Override
  public void onCancel(Status status) {
    call.markCancelled();
    context.cancel(status.asException());
    executor.execute(() -> {
      if (done) {
        return;
      }
      done = true;
      call.closeTracers(status);
      deliver("onCancel", () -> listener.onCancel());
    });
  }

  /** Runs an application callback in the call's context; a throw is logged and cancels the call. */
  private void deliver(String callbackName, Runnable callback) {
    if (listener == null) {
      return; // the handler failed to start; the stream is already closed
    }
    Context previous = context.attach();
    try {
      callback.run();
    } catch (RuntimeException | Error e) {
      logHandlerError(method.getFullMethodName(), "ServerCall.Listener." + callbackName, e);
      stream.cancel(Status.UNKNOWN.withDescription("application error processing the call").withCause(e));
    } finally {
      context.detach(previous);
    }
  }

  /** Logs an exception a handler (or an interceptor) threw, once, with its stack trace. */
  static void logHandlerError(String fullMethodName, String where, Throwable e) {
    HANDLER_ERRORS.log(Level.SEVERE, "Exception while executing the handler of " + fullMethodName + " (" + where
        + "); the call ends with UNKNOWN", e);
  }
}
