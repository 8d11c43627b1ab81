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

/**
 * Carries a server stream's events to the application's {@link ServerCall.Listener} on the call's
 * serializing executor, inside the call's {@link Context}; reports them to the stream tracers.
 */
final class ServerCallStreamListener<ReqT> implements ServerStreamListener {
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
      deliver(() -> listener.onMessage(request));
    });
  }

  @Override
  public void onHalfClose() {
    executor.execute(() -> {
      if (!done) {
        deliver(() -> listener.onHalfClose());
      }
    });
  }

  @Override
  public void onReady() {
    executor.execute(() -> {
      if (!done) {
        deliver(() -> listener.onReady());
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
      deliver(() -> listener.onComplete());
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
      deliver(() -> listener.onCancel());
    });
  }

  /** Runs an application callback in the call's context; a throw cancels the call. */
  private void deliver(Runnable callback) {
    if (listener == null) {
      return; // the handler failed to start; the stream is already closed
    }
    Context previous = context.attach();
    try {
      callback.run();
    } catch (RuntimeException | Error e) {
      stream.cancel(Status.UNKNOWN.withDescription("application error processing the call").withCause(e));
    } finally {
      context.detach(previous);
    }
  }
}
