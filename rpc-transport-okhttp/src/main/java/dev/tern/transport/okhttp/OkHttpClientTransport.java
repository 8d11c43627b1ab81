package dev.tern.transport.okhttp;

import dev.tern.transport.bridge.GrpcClientStream;
import dev.tern.transport.bridge.ConnectFailures;
import dev.tern.transport.bridge.ByteBufferMarshaller;
import dev.tern.transport.bridge.Termination;
import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.HttpConnectProxiedSocketAddress;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.grpc.okhttp.InternalOkHttpChannelBuilder;
import io.grpc.okhttp.OkHttpChannelBuilder;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One connection to one server: a grpc-java {@link ManagedChannel} on grpc-okhttp that is never
 * allowed to reconnect. When the connection fails or is lost, the transport shuts down and Tern's
 * call layer opens a new one (and may choose another transport).
 */
final class OkHttpClientTransport implements ClientTransport, GrpcClientStream.Owner {
  private static final Logger log = Logger.getLogger(OkHttpClientTransport.class.getName());
  private static final String IDENTITY = "identity";
  /** A method no server has: a call to it only ever fails in the channel's picker. */
  private static final MethodDescriptor<ByteBuffer, ByteBuffer> FAILURE_PROBE =
      MethodDescriptor.<ByteBuffer, ByteBuffer>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("dev.tern.transport.okhttp.Internal/WhyDidTheConnectionFail")
          .setRequestMarshaller(ByteBufferMarshaller.INSTANCE).setResponseMarshaller(ByteBufferMarshaller.INSTANCE)
          .build();
  private static final long FAILURE_PROBE_MILLIS = 1000;

  private final SocketAddress address;
  private final String authority;
  private final TransportOptions options;
  private final ChannelCredentials credentials;
  private final Set<GrpcClientStream> streams =
      Collections.newSetFromMap(new ConcurrentHashMap<GrpcClientStream, Boolean>());
  private final SynchronizationContext events = new SynchronizationContext(
      (t, e) -> log.log(Level.WARNING, "okhttp client transport listener failed", e));

  private final Object closeLock = new Object();
  private boolean closing;
  private volatile boolean channelTerminated;
  private final AtomicBoolean terminationReported = new AtomicBoolean();
  private volatile ManagedChannel channel;
  /** False once the transport shut down or its connection failed: new streams fail at once. */
  private volatile boolean accepting = true;
  private volatile SocketAddress localAddress;
  private volatile SocketAddress remoteAddress;
  /** The TLS session of the inner channel's connection, learned from a call; null in plaintext. */
  private volatile javax.net.ssl.SSLSession sslSession;
  // Touched only inside `events`.
  private Listener listener;
  private boolean readyReported;
  private boolean shutdownReported;

  OkHttpClientTransport(SocketAddress address, String authority, TransportOptions options) {
    if (!(address instanceof InetSocketAddress) && !(address instanceof HttpConnectProxiedSocketAddress)) {
      throw new IllegalArgumentException("okhttp: cannot connect to " + address + " ("
          + address.getClass().getName() + "): an InetSocketAddress or an HTTP CONNECT proxied address is needed");
    }
    this.address = address;
    this.authority = authority == null ? authorityOf(address) : authority;
    this.options = options;
    TlsSettings tls = options.get(TransportOptions.TLS);
    this.credentials = tls == null ? InsecureChannelCredentials.create() : TlsCredentials.client(tls);
    this.remoteAddress = address;
  }

  @Override
  public void start(Listener listener) {
    if (listener == null) {
      throw new NullPointerException("listener");
    }
    synchronized (this) {
      if (channel != null) {
        throw new IllegalStateException("okhttp client transport to " + address + " already started");
      }
      channel = buildChannel();
    }
    events.execute(() -> this.listener = listener);
    watch(channel.getState(true));
  }

  private ManagedChannel buildChannel() {
    InetSocketAddress target;
    HttpConnectProxiedSocketAddress proxied = null;
    if (address instanceof HttpConnectProxiedSocketAddress) {
      proxied = (HttpConnectProxiedSocketAddress) address;
      target = proxied.getTargetAddress();
    } else {
      target = (InetSocketAddress) address;
    }
    // Tern's channel resolved the target and asked its proxy detector already: grpc-java's
    // resolver finds an address literal as it is, and the proxy detector only repeats the answer.
    HttpConnectProxiedSocketAddress proxy = proxied;
    OkHttpChannelBuilder builder = OkHttpChannelBuilder.forAddress(hostOf(target), target.getPort(), credentials)
        .proxyDetector(ignored -> proxy)
        // No directExecutor(): grpc-okhttp runs call callbacks under its transport lock when the
        // executor is direct, and this transport's streams call into grpc-java under their own
        // locks; grpc-java's default executor runs each call's callbacks in order, off that lock.
        .disableServiceConfigLookUp()
        .maxInboundMessageSize(options.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE))
        .compressorRegistry(options.get(TransportOptions.COMPRESSOR_REGISTRY))
        .decompressorRegistry(options.get(TransportOptions.DECOMPRESSOR_REGISTRY))
        .maxInboundMetadataSize(options.get(TransportOptions.MAX_INBOUND_METADATA_SIZE))
        .flowControlWindow(options.get(TransportOptions.FLOW_CONTROL_WINDOW))
        // grpc-okhttp has no connect or handshake timeout; bound the TCP connect by it at least.
        .socketFactory(new TimedSocketFactory(options.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS)));
    // Retry policies belong to Tern's channel; this inner channel is given no service config, so
    // with retry on it does only grpc-java's transparent retry of streams the server never
    // processed, as through grpc-okhttp directly.
    if (options.get(TransportOptions.TRANSPARENT_RETRY)) {
      builder.enableRetry().perRpcBufferLimit(options.get(TransportOptions.PER_RPC_BUFFER_LIMIT))
          .retryBufferSize(options.get(TransportOptions.RETRY_BUFFER_SIZE));
    } else {
      builder.disableRetry();
    }
    // Census belongs to Tern's channel, which installs it as grpc-java does.
    InternalOkHttpChannelBuilder.setStatsEnabled(builder, false);
    String userAgent = options.get(TransportOptions.USER_AGENT);
    if (userAgent != null) {
      builder.userAgent(userAgent);
    }
    long idleMillis = options.get(TransportOptions.IDLE_TIMEOUT_MILLIS);
    // grpc-java: an idle timeout of 30 days or more disables idle mode.
    builder.idleTimeout(idleMillis > 0 ? idleMillis : TimeUnit.DAYS.toMillis(30), TimeUnit.MILLISECONDS);
    long keepAliveMillis = options.get(TransportOptions.KEEP_ALIVE_MILLIS);
    if (keepAliveMillis > 0) {
      builder.keepAliveTime(keepAliveMillis, TimeUnit.MILLISECONDS);
    }
    builder.keepAliveTimeout(options.get(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS), TimeUnit.MILLISECONDS)
        .keepAliveWithoutCalls(options.get(TransportOptions.KEEP_ALIVE_WITHOUT_CALLS));
    TlsSettings tls = options.get(TransportOptions.TLS);
    String nameOverride = tls == null ? null : tls.serverNameOverride();
    builder.overrideAuthority(nameOverride != null ? nameOverride : authority);
    return builder.build();
  }

  /** Follows the channel's state; the channel is asked to connect once and never again. */
  private void watch(ConnectivityState state) {
    events.execute(() -> onState(state));
    if (state != ConnectivityState.SHUTDOWN) {
      ManagedChannel ch = channel;
      ch.notifyWhenStateChanged(state, () -> watch(ch.getState(false)));
    }
  }

  private void onState(ConnectivityState state) {
    switch (state) {
      case READY:
        if (!readyReported && !shutdownReported) {
          readyReported = true;
          log.log(Level.FINE, "okhttp connection to {0} ready", address);
          listener.transportReady(connectionInfo());
        }
        break;
      case TRANSIENT_FAILURE:
        if (readyReported) {
          failed(Status.UNAVAILABLE.withDescription("okhttp connection to " + address + " was lost"));
        } else {
          askWhyConnectFailed();
        }
        break;
      case IDLE:
        if (readyReported) {
          failed(Status.UNAVAILABLE.withDescription("okhttp connection to " + address + " was closed"));
        }
        break;
      default:
        break;
    }
  }

  /**
   * grpc-java's channel state carries no reason, but in TRANSIENT_FAILURE its picker fails a call at
   * once with the connection's status and cause (refused, TLS handshake, ...): a call that never
   * reaches the wire reads it. The deadline bounds the case where the channel left that state first.
   */
  private void askWhyConnectFailed() {
    ManagedChannel ch = channel;
    Context previous = Context.ROOT.attach();
    try {
      ClientCall<ByteBuffer, ByteBuffer> probe = ch.newCall(FAILURE_PROBE,
          CallOptions.DEFAULT.withDeadlineAfter(FAILURE_PROBE_MILLIS, TimeUnit.MILLISECONDS));
      probe.start(new ClientCall.Listener<ByteBuffer>() {
        @Override
        public void onClose(Status status, Metadata trailers) {
          events.execute(() -> failed(Status.UNAVAILABLE
              .withDescription(ConnectFailures.describe(OkHttpTransportProvider.NAME, address, serverName(), status)).withCause(status.getCause())));
        }
      }, new Metadata());
    } finally {
      Context.ROOT.detach(previous);
    }
  }

  /** The name the server's certificate must carry: the override, else the authority's host. */
  private String serverName() {
    TlsSettings tls = options.get(TransportOptions.TLS);
    return tls != null && tls.serverNameOverride() != null ? tls.serverNameOverride() : authority;
  }

  private void failed(Status status) {
    if (shutdownReported) {
      return;
    }
    shutdownReported = true;
    accepting = false;
    log.log(Level.FINE, "{0}", status.getDescription());
    listener.transportShutdown(status);
    closeChannel(false);
  }

  @Override
  public ClientStream newStream(RequestHeaders headers, ClientStreamListener streamListener) {
    ManagedChannel ch = channel;
    if (ch == null || !accepting) {
      // grpc-java would hold such a call waiting for a connection this transport never makes again.
      // Nothing of it was sent: the call layer sends it again on another connection.
      streamListener.onNotSent(Status.UNAVAILABLE.withDescription("okhttp transport to " + address
          + (ch == null ? " was not started" : " is shut down") + "; the call was not sent"));
      return ClosedClientStream.INSTANCE;
    }
    CallOptions callOptions = CallOptions.DEFAULT;
    if (headers.deadline() != null) {
      callOptions = callOptions.withDeadline(headers.deadline());
    }
    if (!IDENTITY.equals(headers.messageEncoding())) {
      callOptions = callOptions.withCompression(headers.messageEncoding());
    }
    if (headers.authority() != null && !headers.authority().equals(authority)) {
      callOptions = callOptions.withAuthority(headers.authority());
    }
    Metadata metadata = new Metadata();
    metadata.merge(headers.metadata()); // grpc-java writes into the headers it is given
    // The call layer owns cancellation and deadlines: keep the caller's Context out of grpc-java.
    Context previous = Context.ROOT.attach();
    try {
      ClientCall<ByteBuffer, ByteBuffer> call = ch.newCall(method(headers), callOptions);
      GrpcClientStream stream = new GrpcClientStream(call, streamListener, this);
      streams.add(stream);
      stream.start(metadata);
      return stream;
    } finally {
      Context.ROOT.detach(previous);
    }
  }

  private static MethodDescriptor<ByteBuffer, ByteBuffer> method(RequestHeaders headers) {
    return MethodDescriptor.<ByteBuffer, ByteBuffer>newBuilder()
        .setType(MethodDescriptor.MethodType.UNKNOWN)
        .setFullMethodName(headers.fullMethodName())
        .setRequestMarshaller(ByteBufferMarshaller.INSTANCE)
        .setResponseMarshaller(ByteBufferMarshaller.INSTANCE)
        .setIdempotent(headers.idempotent())
        .build();
  }

  @Override
  public void streamClosed(GrpcClientStream stream) {
    streams.remove(stream);
    maybeTerminated();
  }

  /**
   * Reports termination once the inner channel has terminated and every stream's {@code onClose}
   * has returned: calls' callbacks run on grpc-java's executor, which may still be delivering them
   * when the channel reports itself terminated.
   */
  private void maybeTerminated() {
    if (channelTerminated && streams.isEmpty() && terminationReported.compareAndSet(false, true)) {
      events.execute(() -> {
        if (listener != null) {
          listener.transportTerminated();
        }
      });
    }
  }

  @Override
  public void learnAddresses(Attributes attributes) {
    javax.net.ssl.SSLSession session = attributes.get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (session != null) {
      sslSession = session;
    }
    if (localAddress == null) {
      SocketAddress local = attributes.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR);
      SocketAddress remote = attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      if (remote != null) {
        remoteAddress = remote;
      }
      localAddress = local;
    }
  }

  @Override
  public ConnectionInfo connectionInfo() {
    // Kernel TCP's counters (RTT, window, bytes) are not reachable through grpc-okhttp: they read -1.
    return ConnectionInfo.builder(OkHttpTransportProvider.NAME)
        .localAddress(localAddress)
        .remoteAddress(remoteAddress)
        .sslSession(sslSession)
        .build();
  }

  @Override
  public void shutdown() {
    accepting = false;
    events.execute(() -> {
      if (!shutdownReported) {
        shutdownReported = true;
        if (listener != null) {
          listener.transportShutdown(Status.UNAVAILABLE.withDescription(
              "okhttp transport to " + address + " is shutting down"));
        }
      }
    });
    closeChannel(false);
  }

  @Override
  public void shutdownNow(Status status) {
    accepting = false;
    events.execute(() -> {
      if (!shutdownReported) {
        shutdownReported = true;
        if (listener != null) {
          listener.transportShutdown(status);
        }
      }
    });
    for (GrpcClientStream stream : new ArrayList<>(streams)) {
      stream.cancel(status);
    }
    closeChannel(true);
  }

  private void closeChannel(boolean now) {
    ManagedChannel ch = channel;
    if (ch == null) {
      return;
    }
    boolean first;
    synchronized (closeLock) {
      first = !closing;
      closing = true;
    }
    if (now) {
      ch.shutdownNow();
    } else {
      ch.shutdown();
    }
    if (first) {
      Termination.whenTerminated(ch::awaitTermination, () -> {
        channelTerminated = true;
        maybeTerminated();
      });
    }
  }

  /** The host of an address as grpc-java's resolver takes it: the literal when resolved. */
  private static String hostOf(InetSocketAddress address) {
    return address.isUnresolved() || address.getAddress() == null
        ? address.getHostString() : address.getAddress().getHostAddress();
  }

  private static String authorityOf(SocketAddress address) {
    InetSocketAddress inet = address instanceof HttpConnectProxiedSocketAddress
        ? ((HttpConnectProxiedSocketAddress) address).getTargetAddress() : (InetSocketAddress) address;
    String host = inet.getHostString();
    if (host.indexOf(':') >= 0) {
      host = '[' + host + ']';
    }
    return host + ':' + inet.getPort();
  }

  @Override
  public String toString() {
    return "OkHttpClientTransport{" + address + ", authority=" + authority
        + ", tls=" + (options.get(TransportOptions.TLS) != null) + '}';
  }

  /** Returned for streams that were closed before they opened. */
  static final class ClosedClientStream implements ClientStream {
    static final ClosedClientStream INSTANCE = new ClosedClientStream();

    @Override public void writeMessage(ByteBuffer message) {}
    @Override public void flush() {}
    @Override public void request(int numMessages) {}
    @Override public void halfClose() {}
    @Override public void cancel(Status status) {}
    @Override public boolean isReady() { return false; }
  }
}
