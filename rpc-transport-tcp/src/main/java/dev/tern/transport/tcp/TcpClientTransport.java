package dev.tern.transport.tcp;

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
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One connection to one server: a grpc-java {@link ManagedChannel} on Netty that is never allowed
 * to reconnect. When the connection fails or is lost, the transport shuts down and Tern's call layer
 * opens a new one (and may choose another transport).
 */
final class TcpClientTransport implements ClientTransport, GrpcClientStream.Owner {
  static {
    QuietGrpcLogs.install();
  }

  private static final Logger log = Logger.getLogger(TcpClientTransport.class.getName());
  private static final String IDENTITY = "identity";
  /** A method no server has: a call to it only ever fails in the channel's picker. */
  private static final MethodDescriptor<ByteBuffer, ByteBuffer> FAILURE_PROBE =
      MethodDescriptor.<ByteBuffer, ByteBuffer>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("dev.tern.transport.tcp.Internal/WhyDidTheConnectionFail")
          .setRequestMarshaller(ByteBufferMarshaller.INSTANCE).setResponseMarshaller(ByteBufferMarshaller.INSTANCE)
          .build();
  private static final long FAILURE_PROBE_MILLIS = 1000;

  private final SocketAddress address;
  private final String authority;
  private final TransportOptions options;
  private final SslContext sslContext;
  private final Set<GrpcClientStream> streams = ConcurrentHashMap.newKeySet();
  private final SynchronizationContext events = new SynchronizationContext(
      (t, e) -> log.log(Level.WARNING, "tcp client transport listener failed", e));

  private final Object closeLock = new Object();
  private boolean closing;
  private volatile ManagedChannel channel;
  /** False once the transport shut down or its connection failed: new streams fail at once. */
  private volatile boolean accepting = true;
  private volatile SocketAddress localAddress;
  /** The connection's socket where epoll is used (for TCP_INFO); null otherwise. */
  private volatile EpollSocketChannel socket;
  /** Set once the channel holds the shared event loop group, which it must give back. */
  private volatile boolean usesSharedGroup;
  private volatile SocketAddress remoteAddress;
  /** The TLS session of the inner channel's connection, learned from a call; null in plaintext. */
  private volatile javax.net.ssl.SSLSession sslSession;
  // Touched only inside `events`.
  private Listener listener;
  private boolean readyReported;
  private boolean shutdownReported;

  TcpClientTransport(SocketAddress address, String authority, TransportOptions options) {
    this.address = address;
    this.authority = authority == null ? authorityOf(address) : authority;
    this.options = options;
    TlsSettings tls = options.get(TransportOptions.TLS);
    this.sslContext = tls == null ? null : TlsContexts.client(tls);
    this.remoteAddress = address;
  }

  @Override
  public void start(Listener listener) {
    if (listener == null) {
      throw new NullPointerException("listener");
    }
    synchronized (this) {
      if (channel != null) {
        throw new IllegalStateException("tcp client transport to " + address + " already started");
      }
      channel = buildChannel();
    }
    events.execute(() -> this.listener = listener);
    watch(channel.getState(true));
  }

  private ManagedChannel buildChannel() {
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(address)
        .directExecutor()
        .disableServiceConfigLookUp()
        .maxInboundMessageSize(options.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE))
        .compressorRegistry(options.get(TransportOptions.COMPRESSOR_REGISTRY))
        .decompressorRegistry(options.get(TransportOptions.DECOMPRESSOR_REGISTRY))
        .maxInboundMetadataSize(options.get(TransportOptions.MAX_INBOUND_METADATA_SIZE))
        .flowControlWindow(options.get(TransportOptions.FLOW_CONTROL_WINDOW))
        // grpc-java has no client handshake timeout; bound the TCP connect by it at least.
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS,
            (int) Math.min(Integer.MAX_VALUE, options.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS)));
    // Census belongs to Tern's channel, which installs it as grpc-java does; left on here, this
    // inner channel's census would replace the caller's grpc-tags-bin and grpc-trace-bin with its
    // own (grpc-java has no public switch for it).
    // Retry policies belong to Tern's channel; this inner channel is given no service config, so
    // with retry on it does only grpc-java's transparent retry: a stream the connection never sent
    // (buffered when a GOAWAY came) or the server refused unprocessed goes out again on a new
    // connection, as through grpc-netty directly.
    if (options.get(TransportOptions.TRANSPARENT_RETRY)) {
      builder.enableRetry().perRpcBufferLimit(options.get(TransportOptions.PER_RPC_BUFFER_LIMIT))
          .retryBufferSize(options.get(TransportOptions.RETRY_BUFFER_SIZE));
    } else {
      builder.disableRetry();
    }
    InternalNettyChannelBuilder.setStatsEnabled(builder, false);
    InternalNettyChannelBuilder.setTracingEnabled(builder, false);
    // Channels of this transport's own making: the counter goes first in each one's pipeline.
    TransportEvents wireEvents = options.get(TransportOptions.EVENTS);
    boolean tls = sslContext != null;
    boolean epoll = ClientSockets.epollAvailable();
    usesSharedGroup = true;
    builder.eventLoopGroup(ClientSockets.acquire()).channelFactory(() -> {
      SocketChannel created;
      if (epoll) {
        EpollSocketChannel e = new EpollSocketChannel();
        socket = e;
        created = e;
      } else {
        created = new NioSocketChannel();
      }
      WireCounter.install(created, wireEvents, false, tls, null);
      return created;
    });
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
    String nameOverride = null;
    if (sslContext != null) {
      builder.sslContext(sslContext);
      nameOverride = options.get(TransportOptions.TLS).serverNameOverride();
    } else {
      builder.usePlaintext();
    }
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
          log.log(Level.FINE, "tcp connection to {0} ready", address);
          listener.transportReady(connectionInfo());
        }
        break;
      case TRANSIENT_FAILURE:
        if (readyReported) {
          failed(Status.UNAVAILABLE.withDescription("tcp connection to " + address + " was lost"));
        } else {
          askWhyConnectFailed();
        }
        break;
      case IDLE:
        if (readyReported) {
          failed(Status.UNAVAILABLE.withDescription("tcp connection to " + address + " was closed"));
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
      probe.start(new ClientCall.Listener<>() {
        @Override
        public void onClose(Status status, Metadata trailers) {
          events.execute(() -> failed(Status.UNAVAILABLE
              .withDescription(ConnectFailures.describe(TcpTransportProvider.NAME, address, serverName(), status)).withCause(status.getCause())));
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
      // Nothing of it was sent: the call layer sends it again on another connection (a call that
      // raced this transport's shutdown, e.g. after the server's GOAWAY), as often as that happens.
      streamListener.onNotSent(Status.UNAVAILABLE.withDescription("tcp transport to " + address
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
    ConnectionInfo.Builder info = ConnectionInfo.builder(TcpTransportProvider.NAME)
        .localAddress(localAddress)
        .remoteAddress(remoteAddress)
        .sslSession(sslSession);
    ClientSockets.addTcpInfo(socket, info); // byte counts stay -1: neither grpc-java nor TCP_INFO here has them
    return info.build();
  }

  @Override
  public void shutdown() {
    accepting = false;
    events.execute(() -> {
      if (!shutdownReported) {
        shutdownReported = true;
        if (listener != null) {
          listener.transportShutdown(Status.UNAVAILABLE.withDescription(
              "tcp transport to " + address + " is shutting down"));
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
      boolean shared = usesSharedGroup;
      Termination.whenTerminated(ch::awaitTermination, () -> {
        if (shared) {
          ClientSockets.release();
        }
        events.execute(() -> {
          if (listener != null) {
            listener.transportTerminated();
          }
        });
      });
    }
  }

  private static String authorityOf(SocketAddress address) {
    if (address instanceof InetSocketAddress) {
      InetSocketAddress inet = (InetSocketAddress) address;
      String host = inet.getHostString();
      if (host.indexOf(':') >= 0) {
        host = '[' + host + ']';
      }
      return host + ':' + inet.getPort();
    }
    return "localhost";
  }

  @Override
  public String toString() {
    return "TcpClientTransport{" + address + ", authority=" + authority + ", tls=" + (sslContext != null) + '}';
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
