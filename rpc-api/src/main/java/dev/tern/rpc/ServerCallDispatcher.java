package dev.tern.rpc;

import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.SerializingExecutor;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportEvents;
import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.InternalServer;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.SecurityLevel;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Accepts the streams of one server transport: agrees the protocol version, finds the method,
 * sets up the call's context (deadline, connection info) and tracers, and starts the handler.
 */
final class ServerCallDispatcher implements ServerTransportListener {
  private final TernServer server;
  private final ServerConfig cfg;
  private final boolean versionInHeaders;
  private final SecurityLevel securityLevel;
  private final ScheduledExecutorService scheduler;
  private final TransportMetrics metrics;
  /** Counts each call's end: told once per stream, as every tracer, refused streams included. */
  private final ServerStreamTracer finishCounter;

  /** The name of the transport whose streams this dispatcher serves. */
  private final String transport;

  ServerCallDispatcher(TernServer server, ServerConfig cfg, String transport, boolean versionInHeaders,
      SecurityLevel securityLevel, ScheduledExecutorService scheduler, TransportMetrics metrics) {
    this.transport = transport;
    this.metrics = metrics;
    this.finishCounter = new ServerStreamTracer() {
      @Override
      public void streamClosed(Status status) {
        metrics.callFinished(status.getCode());
      }
    };
    this.server = server;
    this.cfg = cfg;
    this.versionInHeaders = versionInHeaders;
    this.securityLevel = securityLevel;
    this.scheduler = scheduler;
  }

  @Override
  public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
    Metadata md = headers.metadata();
    if (headers.deadline() != null && !md.containsKey(GrpcTimeoutHeader.KEY)) {
      // grpc-java's services see grpc-timeout among the request headers; transports that carry the
      // deadline in a field of their own drop it, so it is put back.
      md.put(GrpcTimeoutHeader.KEY, Math.max(1, headers.deadline().timeRemaining(TimeUnit.NANOSECONDS)));
    }
    // As grpc-java's ServerImpl: the stream's tracers exist before anything may refuse the call, so
    // census and tracing see refused calls (UNIMPLEMENTED, shutting down, ...) too.
    metrics.callStarted();
    List<ServerStreamTracer> tracers = new ArrayList<>(cfg.tracerFactories.size() + 1);
    tracers.add(finishCounter);
    for (ServerStreamTracer.Factory f : cfg.tracerFactories) {
      tracers.add(f.newServerStreamTracer(headers.fullMethodName(), md));
    }
    // grpc-java's reflection service finds the server's services through this context key; it is
    // public API of io.grpc (not io.grpc.internal), the hook every grpc-java server sets. The
    // tracers filter the context before the method is looked up, as in grpc-java.
    Context base = Context.ROOT.withValue(InternalServer.SERVER_CONTEXT_KEY, server);
    for (ServerStreamTracer t : tracers) {
      base = t.filterContext(base);
    }
    if (server.isShutdown()) {
      metrics.refused(TransportEvents.SHUTTING_DOWN);
      return refuse(stream, tracers, Status.UNAVAILABLE.withDescription("server is shutting down"), new Metadata());
    }
    int version;
    String selected = null;
    ConnectionInfo info = stream.connectionInfo();
    if (versionInHeaders) {
      String offered = md.get(ProtocolVersions.REQUEST_KEY);
      int[] theirs;
      try {
        theirs = offered == null ? new int[] {ProtocolVersions.BASE_VERSION} : ProtocolVersions.parse(offered);
      } catch (IllegalArgumentException e) {
        return refuse(stream, tracers, Status.FAILED_PRECONDITION.withDescription(e.getMessage()), new Metadata());
      }
      OptionalInt v = ProtocolVersions.highestCommon(cfg.protocolVersions, theirs);
      if (!v.isPresent()) {
        Metadata trailers = new Metadata();
        trailers.put(ProtocolVersions.SUPPORTED_KEY, ProtocolVersions.format(cfg.protocolVersions));
        return refuse(stream, tracers, ProtocolVersions.noCommonVersion(theirs, cfg.protocolVersions), trailers);
      }
      version = v.getAsInt();
      selected = Integer.toString(version);
      info = info.toBuilder().protocolVersion(version).build();
    } else {
      version = info.protocolVersion();
    }
    String encoding = headers.messageEncoding();
    if (!"identity".equals(encoding) && cfg.decompressors.lookupDecompressor(encoding) == null) {
      return refuse(stream, tracers, Status.UNIMPLEMENTED.withDescription("Can't find decompressor for "
          + encoding), new Metadata());
    }
    String name = headers.fullMethodName();
    ServerMethodDefinition<?, ?> def = cfg.registry.lookupMethod(name, headers.authority());
    if (def == null && cfg.fallback != null) {
      def = cfg.fallback.lookupMethod(name, headers.authority());
    }
    if (def == null) {
      return refuse(stream, tracers, Status.UNIMPLEMENTED.withDescription("Method not found: " + name),
          new Metadata());
    }
    boolean early = stream.receivedAsEarlyData();
    if (early && !EarlyData.replaySafe(def.getMethodDescriptor())) {
      metrics.refused(TransportEvents.EARLY_DATA_NOT_REPLAY_SAFE);
      return refuse(stream, tracers, EarlyData.refusal(name), new Metadata());
    }
    Attributes transportAttributes = stream.attributes();
    if (transportAttributes == null) {
      // A transport without connection events, or a 0-RTT stream ahead of its connection's
      // handshake: the filters have not seen the connection, the call gets what the transport knows.
      transportAttributes = ConnectionAttributes.of(info, info.sslSession() != null
          ? SecurityLevel.PRIVACY_AND_INTEGRITY : securityLevel);
    }
    return start(stream, headers, served(def), base.withValues(TernServerCalls.CONNECTION_INFO, info,
        TernServerCalls.PROTOCOL_VERSION, version, TernServerCalls.EARLY_DATA, early), info, selected, tracers, early,
        transportAttributes);
  }

  private <ReqT, RespT> ServerStreamListener start(ServerStream stream, RequestHeaders headers,
      ServerMethodDefinition<ReqT, RespT> def, Context base, ConnectionInfo info, String selected,
      List<ServerStreamTracer> tracers, boolean early, Attributes transportAttributes) {
    Context.CancellableContext context = headers.deadline() == null ? base.withCancellation()
        : base.withDeadline(headers.deadline(), scheduler);
    MethodDescriptor<ReqT, RespT> method = def.getMethodDescriptor();
    TernServerCall<ReqT, RespT> call = new TernServerCall<>(stream, method, headers.authority(),
        headers.acceptedMessageEncodings(), tracers, cfg, securityLevel, info, selected, early, transportAttributes,
        server.advertisement(transport));
    ServerCallStreamListener<ReqT> adapter = new ServerCallStreamListener<>(stream, method, call, context,
        new SerializingExecutor(callExecutor(call, headers)), tracers, cfg.maxInboundMessageSize);
    context.addListener(ctx -> {
      if (ctx.cancellationCause() instanceof TimeoutException) {
        // As grpc-java's server: the status Contexts.statusFromCancelled gives ("context timed out").
        stream.cancel(Contexts.statusFromCancelled(ctx));
      }
    }, Runnable::run);
    ServerCallHandler<ReqT, RespT> handler = def.getServerCallHandler();
    adapter.executor().execute(() -> {
      ServerStreamTracer.ServerCallInfo<ReqT, RespT> callInfo = new CallInfo<>(call);
      for (ServerStreamTracer t : tracers) {
        t.serverCallStarted(callInfo);
      }
      Context previous = context.attach();
      try {
        adapter.setListener(handler.startCall(call, headers.metadata()));
      } catch (RuntimeException | Error e) {
        ServerCallStreamListener.logHandlerError(method.getFullMethodName(), "ServerCallHandler.startCall", e);
        stream.cancel(Status.UNKNOWN.withDescription("handler of " + method.getFullMethodName()
            + " threw while starting the call").withCause(e));
      } finally {
        context.detach(previous);
      }
    });
    return adapter;
  }

  /** The executor {@code ServerBuilder.callExecutor} picks for {@code call}, or the server's. */
  private java.util.concurrent.Executor callExecutor(TernServerCall<?, ?> call, RequestHeaders headers) {
    io.grpc.ServerCallExecutorSupplier supplier = cfg.callExecutors;
    if (supplier != null) {
      try {
        java.util.concurrent.Executor picked = supplier.getExecutor(call, headers.metadata());
        if (picked != null) {
          return picked;
        }
      } catch (RuntimeException e) {
        java.util.logging.Logger.getLogger(TernServer.class.getName()).log(java.util.logging.Level.WARNING,
            "callExecutor supplier threw for " + call.getMethodDescriptor().getFullMethodName()
                + "; the call runs on the server's executor", e);
      }
    }
    return cfg.executor;
  }

  /**
   * {@code def} as it is served: the interceptors around its handler and, as in grpc-java, the
   * binary log ({@code ServerBuilder.setBinaryLog}) around them, so the log sees the call as it
   * came from the transport.
   */
  private <ReqT, RespT> ServerMethodDefinition<?, ?> served(ServerMethodDefinition<ReqT, RespT> def) {
    ServerMethodDefinition<ReqT, RespT> intercepted =
        def.withServerCallHandler(intercept(def.getServerCallHandler(), cfg.interceptors));
    return cfg.binaryLog == null ? intercepted : cfg.binaryLog.wrapMethodDefinition(intercepted);
  }

  private static <ReqT, RespT> ServerCallHandler<ReqT, RespT> intercept(
      ServerCallHandler<ReqT, RespT> handler, List<ServerInterceptor> interceptors) {
    // Interceptors added last run first, as ServerBuilder.intercept documents.
    ServerCallHandler<ReqT, RespT> h = handler;
    for (ServerInterceptor i : interceptors) {
      ServerCallHandler<ReqT, RespT> next = h;
      h = (call, md) -> i.interceptCall(call, md, next);
    }
    return h;
  }

  private static ServerStreamListener refuse(ServerStream stream, List<ServerStreamTracer> tracers,
      Status status, Metadata trailers) {
    stream.close(status, trailers);
    for (ServerStreamTracer t : tracers) {
      t.streamClosed(status);
    }
    return NOOP;
  }

  @Override
  public ConnectionListener connectionCreated(ConnectionHandle connection) {
    return ServerConnectionEvents.created(cfg.transportFilters, connection, scheduler, cfg.handshakeTimeoutMillis,
        metrics);
  }

  @Override
  public void serverTerminated() {
    server.transportTerminated();
  }

  private static final ServerStreamListener NOOP = new ServerStreamListener() {
    @Override public void onMessage(ByteBuffer message) {}

    @Override public void onHalfClose() {}

    @Override public void onReady() {}

    @Override public void onComplete() {}

    @Override public void onCancel(Status status) {}
  };

  /** What stream tracers learn when a call starts. */
  private static final class CallInfo<ReqT, RespT> extends ServerStreamTracer.ServerCallInfo<ReqT, RespT> {
    private final ServerCall<ReqT, RespT> call;

    CallInfo(ServerCall<ReqT, RespT> call) {
      this.call = call;
    }

    @Override
    public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
      return call.getMethodDescriptor();
    }

    @Override
    public Attributes getAttributes() {
      return call.getAttributes();
    }

    @Override
    public String getAuthority() {
      return call.getAuthority();
    }
  }
}
