package dev.tern.transport.tcp;

import dev.tern.transport.bridge.GrpcServerStream;
import dev.tern.transport.bridge.ConnectionEvents;
import dev.tern.transport.bridge.ByteBufferMarshaller;
import dev.tern.transport.bridge.Termination;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Context;
import io.grpc.HandlerRegistry;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.grpc.netty.InternalNettyServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A grpc-java Netty server whose only service is a fallback registry that accepts every method:
 * each call becomes a {@link GrpcServerStream} handed to Tern's call layer, which decides what
 * exists (and answers {@code UNIMPLEMENTED} for what does not).
 */
final class TcpServerTransport implements ServerTransport, GrpcServerStream.Owner {
  static {
    QuietGrpcLogs.install();
  }

  private static final Metadata.Key<String> ENCODING =
      Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> ACCEPT_ENCODING =
      Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER);
  /**
   * HTTP/2 and gRPC framing headers grpc-java already acted on. As on a grpc-java server, {@code
   * grpc-encoding} and {@code grpc-accept-encoding} stay visible to services (the interop test
   * service checks a request's encoding with them); the SPI carries them in its own fields too.
   * The deadline travels in its own field; the call layer shows it to interceptors as {@code
   * grpc-timeout} again, as grpc-java's server does, for every transport alike.
   */
  private static final List<Metadata.Key<String>> TRANSPORT_KEYS = List.of(
      Metadata.Key.of("grpc-timeout", Metadata.ASCII_STRING_MARSHALLER),
      Metadata.Key.of("content-type", Metadata.ASCII_STRING_MARSHALLER),
      Metadata.Key.of("te", Metadata.ASCII_STRING_MARSHALLER));

  private final SocketAddress bindAddress;
  private final TransportOptions options;
  private final SslContext sslContext;
  private final Set<GrpcServerStream> streams = ConcurrentHashMap.newKeySet();
  private volatile Server server;
  /** The listening socket's event loops and connection limit; set by start. */
  private volatile ServerSockets sockets;
  private volatile SocketAddress boundAddress;
  /** Set by shutdown: streams that still arrive (sent before the client saw GOAWAY) are refused. */
  private volatile boolean shuttingDown;
  private volatile ServerTransportListener listener;
  private boolean terminationWatched;

  TcpServerTransport(SocketAddress bindAddress, TransportOptions options) {
    this.bindAddress = bindAddress;
    this.options = options;
    TlsSettings tls = options.get(TransportOptions.TLS);
    this.sslContext = tls == null ? null : TlsContexts.server(tls);
  }

  @Override
  public void start(ServerTransportListener listener) throws IOException {
    if (listener == null) {
      throw new NullPointerException("listener");
    }
    synchronized (this) {
      if (server != null) {
        throw new IllegalStateException("tcp server transport on " + bindAddress + " already started");
      }
      this.listener = listener;
      // HTTP/2 rapid reset (CVE-2023-44487): enforced by Tern's own RapidResetLimit on each
      // connection rather than grpc-netty's maxRstFramesPerWindow, which closes the connection at
      // once and fails the client's other calls with it.
      ServerSockets own = new ServerSockets(options.get(TransportOptions.MAX_CONNECTIONS),
          options.get(TransportOptions.EVENTS), sslContext != null,
          options.get(TransportOptions.MAX_RST_FRAMES_PER_WINDOW), options.get(TransportOptions.RST_FRAMES_WINDOW_SECONDS));
      NettyServerBuilder builder = NettyServerBuilder.forAddress(bindAddress)
          .channelFactory(own.channelFactory())
          .bossEventLoopGroup(own.boss)
          .workerEventLoopGroup(own.workers)
          .fallbackHandlerRegistry(new AcceptEverything())
          .addTransportFilter(new ConnectionEvents(() -> this.listener, TcpTransportProvider.NAME))
          .directExecutor()
          .maxInboundMessageSize(options.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE))
          .compressorRegistry(options.get(TransportOptions.COMPRESSOR_REGISTRY))
          .decompressorRegistry(options.get(TransportOptions.DECOMPRESSOR_REGISTRY))
          .maxInboundMetadataSize(options.get(TransportOptions.MAX_INBOUND_METADATA_SIZE))
          .flowControlWindow(options.get(TransportOptions.FLOW_CONTROL_WINDOW))
          .maxConcurrentCallsPerConnection(options.get(TransportOptions.MAX_CONCURRENT_STREAMS))
          .handshakeTimeout(options.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS), TimeUnit.MILLISECONDS);
      // Census belongs to Tern's server, which installs it as grpc-java does; this inner server's
      // own would trace every call a second time (grpc-java has no public switch for it).
      InternalNettyServerBuilder.setStatsEnabled(builder, false);
      InternalNettyServerBuilder.setTracingEnabled(builder, false);
      // On by default (TransportOptions.DEFAULT_SERVER_IDLE_TIMEOUT_MILLIS says why): a connection
      // that sent its preface and went quiet would otherwise hold its file descriptor forever.
      long idleMillis = TransportOptions.serverIdleTimeoutMillis(options);
      if (idleMillis > 0) {
        builder.maxConnectionIdle(idleMillis, TimeUnit.MILLISECONDS);
      }
      long keepAliveMillis = options.get(TransportOptions.KEEP_ALIVE_MILLIS);
      if (keepAliveMillis > 0) {
        builder.keepAliveTime(keepAliveMillis, TimeUnit.MILLISECONDS);
      }
      builder.keepAliveTimeout(options.get(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS), TimeUnit.MILLISECONDS)
          .permitKeepAliveTime(options.get(TransportOptions.PERMIT_KEEP_ALIVE_MILLIS), TimeUnit.MILLISECONDS)
          .permitKeepAliveWithoutCalls(options.get(TransportOptions.PERMIT_KEEP_ALIVE_WITHOUT_CALLS));
      long ageMillis = options.get(TransportOptions.MAX_CONNECTION_AGE_MILLIS);
      if (ageMillis > 0) {
        builder.maxConnectionAge(ageMillis, TimeUnit.MILLISECONDS);
      }
      long graceMillis = options.get(TransportOptions.MAX_CONNECTION_AGE_GRACE_MILLIS);
      if (graceMillis > 0) {
        builder.maxConnectionAgeGrace(graceMillis, TimeUnit.MILLISECONDS);
      }
      if (sslContext != null) {
        builder.sslContext(sslContext);
      }
      Server built;
      try {
        built = builder.build();
        built.start();
      } catch (IOException e) {
        own.shutdown();
        throw new IOException("tcp: cannot listen on " + bindAddress + ": " + rootMessage(e), e);
      } catch (RuntimeException e) {
        own.shutdown();
        throw e;
      }
      sockets = own;
      server = built;
      List<? extends SocketAddress> sockets = built.getListenSockets();
      boundAddress = sockets.isEmpty() ? null : sockets.get(0);
    }
  }

  @Override
  public SocketAddress listenAddress() {
    return boundAddress; // kept: grpc-java forgets it once the server terminated
  }

  @Override
  public void shutdown() {
    shuttingDown = true;
    Server s = server;
    if (s != null) {
      s.shutdown();
      watchTermination(s);
    }
  }

  @Override
  public void shutdownNow(Status status) {
    shuttingDown = true;
    Server s = server;
    if (s == null) {
      return;
    }
    s.shutdown(); // stop accepting first, so that no stream slips in between
    for (GrpcServerStream stream : new ArrayList<>(streams)) {
      stream.cancel(status);
    }
    s.shutdownNow();
    watchTermination(s);
  }

  private void watchTermination(Server s) {
    synchronized (this) {
      if (terminationWatched) {
        return;
      }
      terminationWatched = true;
    }
    Termination.whenTerminated(s::awaitTermination, () -> {
      sockets.shutdown();
      listener.serverTerminated();
    });
  }

  /** The listening socket's connection counts; null before start. */
  ServerSockets sockets() {
    return sockets;
  }

  @Override
  public void streamClosed(GrpcServerStream stream) {
    streams.remove(stream);
  }

  private ServerCall.Listener<ByteBuffer> startCall(ServerCall<ByteBuffer, ByteBuffer> call, Metadata headers) {
    if (shuttingDown) {
      call.close(Status.UNAVAILABLE.withDescription("tcp server on " + boundAddress + " is shutting down"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    Context context = Context.current(); // the call's context: its deadline is the client's
    GrpcServerStream stream = new GrpcServerStream(call, context, this, TcpTransportProvider.NAME);
    streams.add(stream);
    stream.setListener(listener.streamCreated(stream, requestHeaders(call, headers, context)));
    return stream;
  }

  private static RequestHeaders requestHeaders(ServerCall<?, ?> call, Metadata headers, Context context) {
    String encoding = headers.get(ENCODING);
    String accept = headers.get(ACCEPT_ENCODING);
    for (Metadata.Key<String> key : TRANSPORT_KEYS) {
      headers.discardAll(key);
    }
    RequestHeaders.Builder builder = RequestHeaders.builder(call.getMethodDescriptor().getFullMethodName())
        .authority(call.getAuthority())
        .metadata(headers)
        .deadline(context.getDeadline())
        .messageEncoding(encoding == null ? "identity" : encoding);
    if (accept != null) {
      builder.acceptedMessageEncodings(splitEncodings(accept));
    }
    return builder.build();
  }

  private static List<String> splitEncodings(String header) {
    List<String> encodings = new ArrayList<>(3);
    for (String part : header.split(",")) {
      String trimmed = part.trim();
      if (!trimmed.isEmpty()) {
        encodings.add(trimmed);
      }
    }
    return encodings;
  }

  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }

  @Override
  public String toString() {
    return "TcpServerTransport{" + bindAddress + ", tls=" + (sslContext != null) + '}';
  }

  /** Accepts every method with pass-through messages; the call layer finds the real handler. */
  private final class AcceptEverything extends HandlerRegistry {
    private final ServerCallHandler<ByteBuffer, ByteBuffer> handler = TcpServerTransport.this::startCall;

    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
      MethodDescriptor<ByteBuffer, ByteBuffer> method = MethodDescriptor.<ByteBuffer, ByteBuffer>newBuilder()
          .setType(MethodDescriptor.MethodType.UNKNOWN)
          .setFullMethodName(methodName)
          .setRequestMarshaller(ByteBufferMarshaller.INSTANCE)
          .setResponseMarshaller(ByteBufferMarshaller.INSTANCE)
          .build();
      return ServerMethodDefinition.create(method, handler);
    }
  }
}
