package dev.tern.transport.okhttp;

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
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import io.grpc.okhttp.InternalOkHttpServerBuilder;
import io.grpc.okhttp.OkHttpServerBuilder;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A grpc-java OkHttp server whose only service is a fallback registry that accepts every method:
 * each call becomes an {@link GrpcServerStream} handed to Tern's call layer, which decides what
 * exists (and answers {@code UNIMPLEMENTED} for what does not).
 *
 * <p>grpc-okhttp has no limit on a client's stream resets (HTTP/2 "rapid reset", CVE-2023-44487):
 * {@link TransportOptions#MAX_RST_FRAMES_PER_WINDOW} is not carried out here. The server side of this
 * transport is for tests and trusted peers; a server facing the Internet uses {@code tcp}.
 */
final class OkHttpServerTransport implements ServerTransport, GrpcServerStream.Owner {
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
  private static final List<Metadata.Key<String>> TRANSPORT_KEYS = Arrays.asList(
      Metadata.Key.of("grpc-timeout", Metadata.ASCII_STRING_MARSHALLER),
      Metadata.Key.of("content-type", Metadata.ASCII_STRING_MARSHALLER),
      Metadata.Key.of("te", Metadata.ASCII_STRING_MARSHALLER));

  private final SocketAddress bindAddress;
  private final TransportOptions options;
  private final ServerCredentials credentials;
  private final boolean tls;
  private final Set<GrpcServerStream> streams = Collections.newSetFromMap(new ConcurrentHashMap<GrpcServerStream, Boolean>());
  private volatile Server server;
  private volatile SocketAddress boundAddress;
  /** Set by shutdown: streams that still arrive (sent before the client saw GOAWAY) are refused. */
  private volatile boolean shuttingDown;
  private volatile ServerTransportListener listener;
  private boolean terminationWatched;
  private volatile boolean serverTerminated;
  private final AtomicBoolean terminationReported = new AtomicBoolean();

  OkHttpServerTransport(SocketAddress bindAddress, TransportOptions options) {
    this.bindAddress = bindAddress;
    this.options = options;
    TlsSettings tls = options.get(TransportOptions.TLS);
    this.tls = tls != null;
    this.credentials = tls == null ? InsecureServerCredentials.create() : TlsCredentials.server(tls);
  }

  @Override
  public void start(ServerTransportListener listener) throws IOException {
    if (listener == null) {
      throw new NullPointerException("listener");
    }
    synchronized (this) {
      if (server != null) {
        throw new IllegalStateException("okhttp server transport on " + bindAddress + " already started");
      }
      this.listener = listener;
      OkHttpServerBuilder builder = OkHttpServerBuilder.forPort(bindAddress, credentials)
          .fallbackHandlerRegistry(new AcceptEverything())
          .addTransportFilter(new ConnectionEvents(() -> this.listener, OkHttpTransportProvider.NAME))
          // No directExecutor(): grpc-okhttp runs call callbacks under its transport lock when the
          // executor is direct (a lock-order deadlock with the streams' own locks); grpc-java's
          // default executor runs each call's callbacks in order, off that lock.
          .maxInboundMessageSize(options.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE))
          .compressorRegistry(options.get(TransportOptions.COMPRESSOR_REGISTRY))
          .decompressorRegistry(options.get(TransportOptions.DECOMPRESSOR_REGISTRY))
          .maxInboundMetadataSize(options.get(TransportOptions.MAX_INBOUND_METADATA_SIZE))
          .flowControlWindow(options.get(TransportOptions.FLOW_CONTROL_WINDOW))
          .maxConcurrentCallsPerConnection(options.get(TransportOptions.MAX_CONCURRENT_STREAMS))
          .handshakeTimeout(options.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS), TimeUnit.MILLISECONDS);
      // Census belongs to Tern's server, which installs it as grpc-java does.
      InternalOkHttpServerBuilder.setStatsEnabled(builder, false);
      long idleMillis = options.get(TransportOptions.IDLE_TIMEOUT_MILLIS);
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
      Server built;
      try {
        built = builder.build();
      } catch (LinkageError e) {
        throw new IllegalStateException("okhttp: grpc-okhttp's server does not run on the grpc-java on the class"
            + " path (" + e + "); build the mobile set with tern-bom-mobile, whose grpc-java line it was"
            + " built for, or serve with the tcp transport", e);
      }
      try {
        built.start();
      } catch (IOException e) {
        throw new IOException("okhttp: cannot listen on " + bindAddress + ": " + rootMessage(e), e);
      }
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
      serverTerminated = true;
      maybeTerminated();
    });
  }

  @Override
  public void streamClosed(GrpcServerStream stream) {
    streams.remove(stream);
    maybeTerminated();
  }

  /**
   * Reports termination once the inner server has terminated and every stream's last callback has
   * returned: calls' callbacks run on grpc-java's executor, which may still be delivering them when
   * the server reports itself terminated.
   */
  private void maybeTerminated() {
    if (serverTerminated && streams.isEmpty() && terminationReported.compareAndSet(false, true)) {
      listener.serverTerminated();
    }
  }

  private ServerCall.Listener<ByteBuffer> startCall(ServerCall<ByteBuffer, ByteBuffer> call, Metadata headers) {
    if (shuttingDown) {
      call.close(Status.UNAVAILABLE.withDescription("okhttp server on " + boundAddress + " is shutting down"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    Context context = Context.current(); // the call's context: its deadline is the client's
    GrpcServerStream stream = new GrpcServerStream(call, context, this, OkHttpTransportProvider.NAME);
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
    return "OkHttpServerTransport{" + bindAddress + ", tls=" + tls + '}';
  }

  /** Accepts every method with pass-through messages; the call layer finds the real handler. */
  private final class AcceptEverything extends HandlerRegistry {
    private final ServerCallHandler<ByteBuffer, ByteBuffer> handler = OkHttpServerTransport.this::startCall;

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
