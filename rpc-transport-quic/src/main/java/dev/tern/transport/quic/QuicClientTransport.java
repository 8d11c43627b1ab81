package dev.tern.transport.quic;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicStreamLimitChangedEvent;
import io.netty.handler.codec.quic.SslEarlyDataReadyEvent;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A client connection: one UDP socket, one QUIC connection, HTTP/3 on top. Owns a one-thread event
 * loop, released when the transport terminates. State is confined to that loop.
 */
final class QuicClientTransport implements ClientTransport {
  static {
    QuietNettyLogs.install();
  }

  private static final io.netty.util.internal.logging.InternalLogger LOG =
      io.netty.util.internal.logging.InternalLoggerFactory.getInstance(QuicClientTransport.class);
  private final InetSocketAddress address;
  private final String authority;
  private final TransportOptions options;
  private final long ourVersions;
  /**
   * How often calls waiting for stream credit look again while nothing else wakes them: Netty
   * reports a MAX_STREAMS frame (RFC 9000 §19.11) only when its copy of the credit was 0.
   */
  static final long CREDIT_RETRY_MILLIS = 20;
  private final Set<QuicClientStream> streams = new LinkedHashSet<>();
  /**
   * Calls not yet given a QUIC stream, in arrival order: waiting for the handshake, or for stream
   * credit (RFC 9000 §4.6). A call that ends meanwhile (cancelled, deadline) leaves it.
   */
  private final ArrayDeque<QuicClientStream> waiting = new ArrayDeque<>();
  /** The backstop look at the credit while calls wait for it; null when not armed. */
  private ScheduledFuture<?> creditTimer;
  /** quiche refused a stream for the peer's limit: no new attempt until the credit may have changed. */
  private boolean creditRefused;
  /** {@link #openPending} is running (it can be asked for again from inside, by a call it ends). */
  private boolean openingPending;
  private final SendErrors sendErrors = new SendErrors();
  private final QuicStats stats;
  /** Where this transport reports its own events (bytes, lost packets, streams the server reset). */
  private final dev.tern.rpc.spi.TransportEvents events;
  /** Keep-alive, dead-peer detection and the check of a quiet connection, once ready; null before. */
  private volatile QuicLiveness liveness;
  private EventLoopGroup group;
  private EventLoop loop;
  private Listener listener;
  private Channel udp;
  private volatile QuicChannel quic;
  private volatile boolean active;
  private boolean ready;
  private boolean shutdown;
  /** Why the transport shut down, once it did; what refusals of later calls name. On the loop. */
  private Status shutdownStatus;
  private boolean closing;
  /** The server sent GOAWAY: no stream is opened on this connection any more. */
  private boolean goAwayReceived;
  private Long serverVersions;
  private volatile int version;
  private boolean earlyDataReady;
  private volatile boolean earlyDataSent;
  private volatile boolean settingsReceived;
  private volatile long statelessResets;
  /** The server's CONNECTION_CLOSE, once quiche reported it. */
  private volatile io.netty.handler.codec.quic.QuicConnectionCloseEvent peerClose;
  /** Why the server's certificate was rejected, if it was; set at start. */
  private DiagnosingTrustManager trust;
  /** The name the server's certificate must carry. */
  private String sniHost;
  /** This connection's TLS engine, once the codec made it. */
  private volatile io.netty.handler.codec.quic.QuicSslEngine engine;
  /** The server as TLS and the versions it named are remembered: name, address, port. */
  private final String serverKey;

  QuicClientTransport(InetSocketAddress address, String authority, TransportOptions options) {
    this.address = address;
    this.authority = authority != null ? authority : address.getHostString() + ":" + address.getPort();
    this.options = options;
    this.ourVersions = TernVersions.toBits(options.get(TransportOptions.PROTOCOL_VERSIONS));
    this.serverKey = this.authority + '@' + address;
    this.events = options.get(TransportOptions.EVENTS);
    this.stats = new QuicStats(events);
  }

  /** Where this transport's streams report their events. */
  dev.tern.rpc.spi.TransportEvents events() {
    return events;
  }

  @Override
  public void start(Listener listener) {
    if (this.listener != null) {
      throw new IllegalStateException("already started");
    }
    this.listener = java.util.Objects.requireNonNull(listener, "listener");
    group = EventLoops.newGroup(1, "tern-quic-client");
    loop = group.next();
    boolean earlyData = options.get(QuicTransportOptions.EARLY_DATA);
    TlsSettings tls = options.get(TransportOptions.TLS);
    QuicTls.Client tlsClient;
    try {
      tlsClient = QuicTls.client(tls, earlyData);
    } catch (RuntimeException e) {
      loop.execute(() -> fail(Status.UNAVAILABLE.withDescription("QUIC connection to " + address + ": "
          + e.getMessage()).withCause(e)));
      return;
    }
    QuicSslContext ssl = tlsClient.context;
    trust = tlsClient.trust;
    sniHost = tls.serverNameOverride() != null ? tls.serverNameOverride() : host(authority);
    int port = address.getPort();
    io.netty.channel.ChannelHandler codec = QuicCodecs.apply(new QuicClientCodecBuilder(), options)
        // Host and port let the TLS session cache resume sessions per server (0-RTT).
        .sslEngineProvider(q -> engine = ssl.newEngine(q.alloc(), sniHost, port))
        .build();
    // Armed before the connect: a connect that fails at once (nothing listens) shuts the event loop
    // down from the loop's own thread, after which nothing more can be scheduled on it.
    long timeoutMillis = options.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS);
    loop.schedule(() -> {
      if (!ready && !closing) {
        fail(Status.UNAVAILABLE.withDescription("QUIC handshake with " + address + " did not finish in "
            + timeoutMillis + " ms"));
      }
    }, timeoutMillis, TimeUnit.MILLISECONDS);
    DatagramImpairment impairment = options.get(QuicTransportOptions.IMPAIRMENT);
    boolean loopback = address.getAddress() != null && address.getAddress().isLoopbackAddress();
    InetSocketAddress local = loopback ? new InetSocketAddress(address.getAddress(), 0) : new InetSocketAddress(0);
    Bootstrap udpBootstrap = new Bootstrap().group(loop).channel(NioDatagramChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            if (impairment != null) {
              ch.pipeline().addLast(new ImpairmentHandler(impairment));
            }
            ch.pipeline().addLast(new DatagramCounter(events));
            if (!loopback) {
              // Only where the socket is unconnected and its address can go away (below). On
              // loopback, with the impairment handler in the pipeline, the QUIC-under-loss interop
              // run stalled a server-streaming call in 2 of 5 runs with this handler and in none of
              // 16 without it; the cause is not understood yet.
              ch.pipeline().addLast(sendErrors);
            }
            ch.pipeline().addLast(resetDetector);
            ch.pipeline().addLast(arrivals);
            ch.pipeline().addLast(codec);
            ch.pipeline().addLast(new UdpErrors());
          }
        });
    // RFC 9000 §9: the connection must outlive a change of this host's address. A connected UDP
    // socket keeps the source address the kernel chose at connect time; once that address is
    // removed every send is refused and the server never hears from the new one. An unconnected
    // socket bound to the wildcard address gets the current source address for each datagram, so
    // the server sees the connection's packets arrive from the new address, validates that path
    // (PATH_CHALLENGE/PATH_RESPONSE, RFC 9000 §8.2) and moves the connection to it (§9.3: to the
    // client this is the same path; its QUIC stack need not know). The price: an unconnected socket
    // hears no ICMP port-unreachable, so "nothing listens there" fails at the handshake timeout
    // instead of at once. Loopback addresses never go away, so a loopback server keeps the fast
    // failure with a connected socket. (Disconnecting after the handshake does not work: the local
    // address the codec reports for received datagrams changes from the chosen source address to
    // the wildcard one, an unknown path to which a quiche client drops every packet, as RFC 9000 §9
    // asks of packets from an unknown server address. That same rule keeps the unconnected socket
    // safe: datagrams from any other address than the server's are dropped.)
    (loopback ? udpBootstrap.connect(address, local) : udpBootstrap.bind(local)).addListener(f -> {
          if (!f.isSuccess()) {
            fail(Status.UNAVAILABLE.withDescription("cannot open a UDP socket from " + local + " to " + address
                + ": " + f.cause()).withCause(f.cause()));
            return;
          }
          udp = ((io.netty.channel.ChannelFuture) f).channel();
          connect();
        });
  }

  private static String host(String authority) {
    int colon = authority.lastIndexOf(':');
    String h = colon > 0 && authority.indexOf(']') < colon ? authority.substring(0, colon) : authority;
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }

  private void connect() {
    if (closing) {
      return;
    }
    io.netty.util.concurrent.Future<QuicChannel> connected = qlogged(QuicChannel.newBootstrap(udp))
        .handler(new ChannelInitializer<QuicChannel>() {
          @Override
          protected void initChannel(QuicChannel ch) {
            quic = ch;
            stats.attach(ch);
            ch.pipeline().addLast(new Http3ClientConnectionHandler(new ControlFrames(), null, null,
                LocalSettings.frame(ourVersions, options), true, LocalSettings.VALIDATOR));
            ch.pipeline().addLast(new ConnectionEvents());
          }
        })
        .remoteAddress(address)
        .connect();
    connected.addListener(f -> {
      if (!f.isSuccess()) {
        fail(Status.UNAVAILABLE.withDescription("QUIC connection to " + address + " failed: " + f.cause())
            .withCause(f.cause()));
      }
    });
  }

  /** {@code b} with quiche's qlog on if {@link QuicTransportOptions#QLOG_DIR} asks for it. */
  private io.netty.handler.codec.quic.QuicChannelBootstrap qlogged(
      io.netty.handler.codec.quic.QuicChannelBootstrap b) {
    io.netty.handler.codec.quic.QLogConfiguration qlog = QuicCodecs.qlog(options, "client to " + address);
    return qlog == null ? b : b.option(io.netty.handler.codec.quic.QuicChannelOption.QLOG, qlog);
  }

  /** Events of the QUIC connection itself. */
  private final class ConnectionEvents extends ChannelInboundHandlerAdapter {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      active = true;
      // Calls go out now. Ready once the server's versions are known: from its SETTINGS, or, when
      // they are still on their way (they leave only once the server has our Finished, a round trip
      // from now), from what it named on an earlier connection, so that calls the call layer holds
      // until ready need not wait that round trip. The SETTINGS still confirm the version. The
      // handshake brought the server's limits: a refusal in 0-RTT no longer holds the queue back.
      creditRefused = false;
      openPending(false);
      Long remembered = serverVersions != null ? serverVersions : KnownServerVersions.get(serverKey);
      int v = remembered == null ? 0 : TernVersions.highestCommon(ourVersions, remembered);
      if (serverVersions != null) {
        onServerVersions(serverVersions);
      } else if (v != 0) {
        becomeReady(v);
      }
      ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof SslEarlyDataReadyEvent) {
        earlyDataReady = true;
        // Netty fires this from inside its send path, where writes are not flushed to the wire;
        // opening the streams in a task of their own lets them leave in 0-RTT packets.
        ctx.channel().eventLoop().execute(() -> openPending(true));
      } else if (evt instanceof QuicStreamLimitChangedEvent) {
        creditMayHaveChanged();
      } else if (evt instanceof io.netty.handler.codec.quic.QuicConnectionCloseEvent) {
        peerClose = (io.netty.handler.codec.quic.QuicConnectionCloseEvent) evt;
        // RFC 9000 §10.2.2: with the server's CONNECTION_CLOSE the connection is draining; nothing
        // more can be sent or received on it. Quiche keeps the channel open for three probe
        // timeouts first (§10.2), which after a burst of losses or a long RTT can be seconds:
        // calls are ended, and new ones sent elsewhere, now rather than then.
        lost(connectionLost());
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      lost(connectionLost());
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail(Status.UNAVAILABLE.withDescription("QUIC connection to " + address + " failed: " + cause)
          .withCause(cause));
    }
  }

  /**
   * The status for calls cut by the connection's end: names the idle timeout when quiche closed the
   * connection because nothing was heard for that long (RFC 9000 §10.1), and refused sends if any.
   */
  private Status connectionLost() {
    Status end = endStatus();
    return end != null ? end
        : Status.UNAVAILABLE.withDescription("QUIC connection to " + address + " closed" + sendErrors.describe());
  }

  /**
   * Why the connection ended, when quiche said: its idle timeout, or the server's
   * CONNECTION_CLOSE with its code and reason (RFC 9000 §19.19: a server over its connection
   * limit sends CONNECTION_REFUSED); null otherwise.
   */
  Status endStatus() {
    Status idle = idleTimedOut();
    if (idle != null) {
      return idle;
    }
    io.netty.handler.codec.quic.QuicConnectionCloseEvent close = peerClose;
    if (close == null) {
      return null;
    }
    byte[] reason;
    try {
      reason = close.reason();
    } catch (NullPointerException noReason) {
      // Netty's event copies its reason without a null check; a close without one has none.
      reason = null;
    }
    String why = reason == null || reason.length == 0 ? ""
        : ": " + new String(reason, java.nio.charset.StandardCharsets.UTF_8);
    String code = close.isApplicationClose() ? StreamHandler.h3ErrorName(close.error())
        : close.isTlsError() ? "TLS alert " + io.netty.handler.codec.quic.QuicConnectionCloseEvent.extractTlsError(close.error())
        : transportErrorName(close.error());
    return Status.UNAVAILABLE.withDescription("QUIC connection to " + address + " closed by the server with "
        + code + why);
  }

  /** RFC 9000 §20.1's names for the transport error codes a server may close with. */
  private static String transportErrorName(int code) {
    String[] names = {"NO_ERROR", "INTERNAL_ERROR", "CONNECTION_REFUSED", "FLOW_CONTROL_ERROR",
        "STREAM_LIMIT_ERROR", "STREAM_STATE_ERROR", "FINAL_SIZE_ERROR", "FRAME_ENCODING_ERROR",
        "TRANSPORT_PARAMETER_ERROR", "CONNECTION_ID_LIMIT_ERROR", "PROTOCOL_VIOLATION", "INVALID_TOKEN",
        "APPLICATION_ERROR", "CRYPTO_BUFFER_EXCEEDED", "KEY_UPDATE_ERROR", "AEAD_LIMIT_REACHED", "NO_VIABLE_PATH"};
    return (code >= 0 && code < names.length ? names[code] : "transport error") + " (0x" + Integer.toHexString(code)
        + ")";
  }

  /** The status naming the idle timeout if quiche closed the connection for it, else null. */
  Status idleTimedOut() {
    QuicChannel q = quic;
    if (q == null || !q.isTimedOut()) {
      return null;
    }
    return Status.UNAVAILABLE.withDescription("QUIC connection to " + address + " timed out: nothing heard for "
        + "the idle timeout (" + options.get(QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS) + " ms asked), "
        + "the path is dead" + sendErrors.describe());
  }

  /** The options this transport was made with. */
  TransportOptions options() {
    return options;
  }

  /** The connection's event loop, once started. */
  EventLoop eventLoop() {
    return loop;
  }

  /** Probes this connection sent, keep-alive and liveness checks (any thread); for tests. */
  /** Whether quiche still holds the connection open (true while it drains); for tests. */
  boolean quicChannelActive() {
    QuicChannel q = quic;
    return q != null && q.isActive();
  }

  long keepAliveProbesSent() {
    QuicLiveness l = liveness;
    return l == null ? 0 : l.probesSent();
  }

  /** Whether a call has a stream (or is getting one) on this connection; on the loop. */
  private boolean callsInFlight() {
    for (QuicClientStream s : streams) {
      if (!s.neverOpened()) {
        return true;
      }
    }
    return false;
  }

  /** Times a call waited for this quiet connection to answer a probe (any thread); for tests. */
  long quietChecks() {
    QuicLiveness l = liveness;
    return l == null ? 0 : l.quietChecks();
  }

  /**
   * A call handed quiche something that asks for an answer (headers, data, its end, a reset); on
   * the loop. Starts the wait for the peer's answer if none runs.
   */
  void sent() {
    QuicLiveness l = liveness;
    if (l != null) {
      l.onSend();
    }
  }

  /** Datagrams of this connection the kernel refused to send (any thread). */
  long refusedSends() {
    return sendErrors.failed();
  }

  /**
   * Recognises the server's stateless reset (RFC 9000 §10.3, {@link StatelessResets}) once its
   * SETTINGS gave the connection's secret; on the loop.
   */
  private final StatelessResets.Detector resetDetector = new StatelessResets.Detector(this::onStatelessReset);

  /** Stateless resets received (any thread); for tests. */
  long statelessResetsReceived() {
    return statelessResets;
  }

  /**
   * The server no longer has this connection: it restarted (or lost its state). With a valid
   * proof of its uptime, a call whose stream opened after the new process bound its socket can
   * only have reached that process, which dropped it unread, so it is refused unprocessed for the
   * call layer to send again; so is a call never opened. Others may have reached the old process
   * and fail. On the loop.
   */
  private void onStatelessReset(long uptimeMillis) {
    long now = System.nanoTime();
    statelessResets++;
    if (closing) {
      return;
    }
    // The new process bound its socket before now - uptime (the reset took time to arrive, and the
    // uptime is rounded down); 2 ms more covers the two clocks' rates over a short uptime.
    long boundBefore = now - TimeUnit.MILLISECONDS.toNanos(uptimeMillis) + TimeUnit.MILLISECONDS.toNanos(2);
    Status status = Status.UNAVAILABLE.withDescription("QUIC connection to " + address + " is gone: the server no"
        + " longer has it (stateless reset, RFC 9000 §10.3); it has restarted or lost its state"
        + (uptimeMillis >= 0 ? ", " + uptimeMillis + " ms ago" : ""));
    lost(status, s -> s.neverOpened()
        || (uptimeMillis >= 0 && s.openedAtNanos() != 0 && s.openedAtNanos() - boundBefore > 0),
        "; the call was not processed (not sent, or sent only to the restarted server), safe to retry on a new"
            + " connection");
  }

  /** Tells the liveness check of each datagram's arrival, before the codec reads it; sharable, no allocation. */
  private final ChannelInboundHandlerAdapter arrivals = new ChannelInboundHandlerAdapter() {
    @Override
    public boolean isSharable() {
      return true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      QuicLiveness l = liveness;
      if (l != null) {
        l.onDatagram();
      }
      ctx.fireChannelRead(msg);
    }
  };

  /**
   * Errors of the UDP socket itself. An ICMP port unreachable (reported on the connected socket a
   * loopback server gets, RFC 1122 §4.1.3.3) means nothing listens there any more: before the
   * handshake the server is not there; after it, the server is gone (crashed, or restarting), and
   * the connection fails at once rather than waiting for quiche's idle timeout.
   */
  private final class UdpErrors extends ChannelInboundHandlerAdapter {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (!(cause instanceof java.net.PortUnreachableException) || closing) {
        return;
      }
      if (!ready) {
        fail(Status.UNAVAILABLE.withDescription("nothing listens on UDP " + address + " (port unreachable)")
            .withCause(cause));
      } else {
        lost(Status.UNAVAILABLE.withDescription("QUIC connection to " + address + " is dead: nothing listens on UDP "
            + address + " any more (port unreachable); the server has crashed or is restarting").withCause(cause));
      }
    }
  }

  /** Frames of the server's HTTP/3 control stream: SETTINGS and GOAWAY. */
  private final class ControlFrames extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof io.netty.handler.codec.http3.Http3SettingsFrame) {
          io.netty.handler.codec.http3.Http3Settings settings =
              ((io.netty.handler.codec.http3.Http3SettingsFrame) msg).settings();
          byte[] secret = StatelessResets.fromSettings(settings.get(StatelessResets.SETTING_SECRET_0),
              settings.get(StatelessResets.SETTING_SECRET_1), settings.get(StatelessResets.SETTING_SECRET_2));
          if (secret != null) {
            resetDetector.arm(secret);
          }
          Long bits = settings.get(TernVersions.SETTING_ID);
          onServerVersions(bits == null ? TernVersions.PLAIN_GRPC : bits);
        } else if (msg instanceof io.netty.handler.codec.http3.Http3GoAwayFrame) {
          onGoAway(((io.netty.handler.codec.http3.Http3GoAwayFrame) msg).id());
        }
      } finally {
        io.netty.util.ReferenceCountUtil.release(msg);
      }
    }
  }

  private void onServerVersions(long bits) {
    serverVersions = bits;
    settingsReceived = true;
    KnownServerVersions.put(serverKey, bits);
    int v = TernVersions.highestCommon(ourVersions, bits);
    if (v == 0) {
      fail(TernVersions.noCommonVersion(ourVersions, bits));
      return;
    }
    if (active && !ready) {
      becomeReady(v);
    } else {
      version = v;
    }
  }

  private void becomeReady(int v) {
    version = v;
    ready = true;
    QuicChannel q = quic;
    if (liveness == null && q != null) {
      liveness = new QuicLiveness(q, options.get(TransportOptions.KEEP_ALIVE_MILLIS),
          options.get(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS), options.get(QuicTransportOptions.MAX_ACK_DELAY_MILLIS),
          options.get(TransportOptions.KEEP_ALIVE_WITHOUT_CALLS), () -> !streams.isEmpty(), this::callsInFlight, this::lost,
          () -> openPending(false));
      liveness.start();
    }
    stats.refresh();
    listener.transportReady(connectionInfo());
  }

  /** True once this connection's server SETTINGS have arrived (read on any thread). */
  boolean settingsReceived() {
    return settingsReceived;
  }

  private void onGoAway(long firstUnprocessedId) {
    goAwayReceived = true;
    if (!shutdown) {
      shutDown(Status.UNAVAILABLE.withDescription("server " + address + " sent GOAWAY"));
    }
    // RFC 9114 §5.2: a client that has received GOAWAY opens no more requests on the connection,
    // and requests on streams at or above the GOAWAY's identifier were not processed. Calls still
    // queued here (waiting for the handshake or a stream slot) were never sent. Both are refused,
    // which lets the call layer replay them on a new connection (grpc-java's transparent retry)
    // instead of their going out on the draining connection once a slot frees.
    for (QuicClientStream s : new ArrayList<>(streams)) {
      long id = s.streamIdOrUnopened();
      if (s.isPending() || id >= firstUnprocessedId) {
        s.refuse(Status.UNAVAILABLE.withDescription("server " + address + " sent GOAWAY before the call "
            + (id < 0 ? "was sent" : "was processed") + "; not processed, safe to retry on a new connection"));
      }
    }
    waiting.clear();
    stopCreditTimer();
    maybeClose();
  }

  /**
   * Opens waiting calls' streams while the peer allows more (RFC 9000 §4.6); before the handshake,
   * only calls allowed 0-RTT early data (RFC 9001 §4.6.1), within the limit the server set on the
   * connection this one resumes. The rest wait for credit: a stream of this connection ending, a
   * MAX_STREAMS frame, or the backstop timer.
   */
  private void openPending(boolean earlyOnly) {
    QuicChannel q = quic;
    if (q == null || closing || goAwayReceived || creditRefused || openingPending || waiting.isEmpty()) {
      return;
    }
    // A call failed here ends at once and its end asks for this again: the running loop goes on.
    openingPending = true;
    try {
      if (earlyOnly) {
        openEarly(q);
      } else {
        openInOrder(q);
      }
    } finally {
      openingPending = false;
    }
  }

  private void openInOrder(QuicChannel q) {
    QuicLiveness l = liveness;
    if (l != null && !l.usable()) {
      return; // a quiet connection is checked first; its answer opens the queue again
    }
    QuicClientStream s;
    while ((s = waiting.peek()) != null) {
      if (!s.isPending()) {
        waiting.poll();
        continue;
      }
      if (failIfExpired(s)) {
        continue; // its close took it out of the queue
      }
      long left = StreamCredit.bidiLeft(q, true);
      if (left != StreamCredit.UNKNOWN && left <= 0) {
        awaitCredit();
        return;
      }
      waiting.poll();
      s.open(q, authority);
      if (creditRefused || closing || goAwayReceived) {
        return; // quiche refused it after all (it is back at the head of the queue), or the end came
      }
    }
    stopCreditTimer();
  }

  /** The 0-RTT case of {@link #openPending}: rare (once per resumed connection), so it may copy. */
  private void openEarly(QuicChannel q) {
    for (QuicClientStream s : waiting.toArray(new QuicClientStream[0])) {
      if (!s.isPending() || !s.headers().earlyDataAllowed() || failIfExpired(s)) {
        continue;
      }
      long left = StreamCredit.bidiLeft(q, false);
      if (left != StreamCredit.UNKNOWN && left <= 0) {
        awaitCredit();
        return;
      }
      waiting.remove(s);
      earlyDataSent = true;
      s.open(q, authority);
      if (creditRefused || closing) {
        return;
      }
    }
  }

  /** Ends a waiting call whose deadline passed before it got a stream; true if it did. */
  private static boolean failIfExpired(QuicClientStream s) {
    io.grpc.Deadline deadline = s.headers().deadline();
    if (deadline == null || !deadline.isExpired()) {
      return false;
    }
    s.fail(Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded while the call waited for a QUIC stream"));
    return true;
  }

  private void awaitCredit() {
    if (creditTimer == null && !closing) {
      creditTimer = loop.schedule(() -> {
        creditTimer = null;
        creditMayHaveChanged();
      }, CREDIT_RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private void stopCreditTimer() {
    if (creditTimer != null) {
      creditTimer.cancel(false);
      creditTimer = null;
    }
  }

  /** A stream ended, MAX_STREAMS may have arrived, or the backstop fired: waiting calls look again. */
  private void creditMayHaveChanged() {
    creditRefused = false;
    if (!closing && (active || earlyDataReady)) {
      openPending(!active);
    }
  }

  @Override
  public ClientStream newStream(RequestHeaders headers, ClientStreamListener listener) {
    int maxInbound = options.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE);
    if (loop == null) {
      throw new IllegalStateException("newStream before start");
    }
    QuicClientStream stream = new QuicClientStream(this, loop, headers, listener, maxInbound, active);
    boolean queued = execute(() -> {
      if (shutdown || closing) {
        // Never sent: the call layer may send it again on another connection.
        Status why = shutdownStatus;
        stream.refuse(Status.UNAVAILABLE.withDescription("QUIC transport to " + address + " is shut down"
            + (why == null || why.getDescription() == null ? "" : " (" + why.getDescription() + ")")));
        return;
      }
      streams.add(stream);
      waiting.add(stream);
      if (active) {
        openPending(false);
      } else if (earlyDataReady) {
        // RFC 9001 §4.6.1: a resumed connection may carry these calls in 0-RTT packets.
        openPending(true);
      }
    });
    if (!queued) {
      listener.onClose(Status.UNAVAILABLE.withDescription("QUIC transport to " + address + " has terminated"),
          new io.grpc.Metadata());
    }
    return stream;
  }

  /**
   * A stream could not be opened; true if the call waits for credit instead of failing: quiche
   * refused it for the peer's stream limit (RFC 9000 §4.6) on a connection that is still healthy.
   * On the loop.
   */
  boolean streamRefused(QuicClientStream stream, Throwable cause) {
    QuicChannel q = quic;
    if (q == null || !q.isOpen() || closing || goAwayReceived || !StreamCredit.isStreamLimit(cause)) {
      return false;
    }
    waiting.addFirst(stream);
    creditRefused = true;
    awaitCredit();
    return true;
  }

  /** A stream has ended; on the loop. */
  void streamClosed(QuicClientStream stream) {
    stats.refresh();
    streams.remove(stream);
    if (stream.neverOpened()) {
      waiting.remove(stream);
    }
    maybeClose();
    creditMayHaveChanged();
  }

  private void maybeClose() {
    if (shutdown && streams.isEmpty() && !closing) {
      closeConnection(Status.UNAVAILABLE.withDescription("transport shut down"));
    }
  }

  /** Runs {@code task} on the loop; once the loop is gone the transport is over and it is dropped. */
  private boolean execute(Runnable task) {
    // A transport never started has nothing to shut down.
    return loop != null && EventLoops.run(loop, task);
  }

  /** Takes no more streams, remembers why (later refusals name it) and tells the listener; on the loop. */
  private void shutDown(Status why) {
    shutdown = true;
    shutdownStatus = why;
    listener.transportShutdown(why);
  }

  /**
   * False once the server closed the connection (its CONNECTION_CLOSE: a refusal over its limits)
   * before its SETTINGS arrived, while the transport was ready on remembered versions. A connection
   * that went silent before them (its close lost, say) is a connection lost as any other: the
   * silence took the dead-peer rule's seconds to find, and the next call may reconnect at once.
   */
  @Override
  public boolean confirmed() {
    return settingsReceived || peerClose == null;
  }

  @Override
  public ConnectionInfo connectionInfo() {
    return stats.snapshot(version, earlyDataSent);
  }

  @Override
  public void shutdown() {
    execute(() -> {
      if (!shutdown) {
        shutDown(Status.UNAVAILABLE.withDescription("transport shutdown"));
      }
      maybeClose();
    });
  }

  @Override
  public void shutdownNow(Status status) {
    execute(() -> fail(status));
  }

  /**
   * The connection is gone (its peer stopped answering, nothing listens at its address, quiche
   * closed it): as {@link #fail}, but calls never given a stream, which the server cannot have
   * seen, end as refused unprocessed, so that the call layer sends them again on a new
   * connection. On the loop.
   */
  private void lost(Status status) {
    lost(status, QuicClientStream::neverOpened, "; the call was not sent, safe to retry on a new connection");
  }

  /**
   * As {@link #lost(Status)}, refusing unprocessed the calls {@code unprocessed} says the server
   * cannot have processed.
   */
  private void lost(Status status, java.util.function.Predicate<QuicClientStream> unprocessed, String refused) {
    if (closing || !ready) {
      fail(status); // before the handshake the failure is the connection attempt's own
      return;
    }
    ArrayList<QuicClientStream> unsent = new ArrayList<>();
    for (QuicClientStream s : streams) {
      if (unprocessed.test(s)) {
        unsent.add(s);
      }
    }
    waiting.clear(); // nothing is opened any more
    if (!shutdown) {
      // Before the refusals: the call layer sends them again on another connection, not this one.
      LOG.debug("QUIC connection to {} ends: {}", address, status.getDescription());
      shutDown(status);
    }
    Status refusal = Status.UNAVAILABLE.withDescription(status.getDescription() + refused);
    for (QuicClientStream s : unsent) {
      s.refuse(refusal);
    }
    fail(status);
  }

  /** Fails every stream with {@code status} and closes; on the loop. Idempotent. */
  private void fail(Status status) {
    if (liveness != null) {
      liveness.stop();
    }
    if (!shutdown) {
      Status reported = ready ? status : withCertificateReason(status);
      LOG.debug("QUIC connection to {} ends: {}", address, reported.getDescription());
      shutDown(reported);
    }
    for (QuicClientStream s : new ArrayList<>(streams)) {
      s.fail(status);
    }
    streams.clear();
    waiting.clear();
    stopCreditTimer();
    if (!closing) {
      closeConnection(status);
    }
  }

  /**
   * {@code status}, or, when the handshake failed because the server's certificate was rejected
   * (which BoringSSL reports only as CERTIFICATE_VERIFY_FAILED), a status that says why.
   */
  private Status withCertificateReason(Status status) {
    javax.net.ssl.SSLEngine e = engine;
    String why = trust == null || e == null ? null : trust.explain(e, sniHost);
    return why == null ? status : Status.UNAVAILABLE.withDescription("QUIC connection to " + address
        + " failed in the TLS handshake: " + why).withCause(status.getCause());
  }

  private void closeConnection(Status why) {
    closing = true;
    stopCreditTimer();
    QuicChannel q = quic;
    Runnable closeUdp = () -> {
      if (udp != null) {
        udp.close().addListener(f -> terminate());
      } else {
        terminate();
      }
    };
    if (q != null && q.isOpen()) {
      // RFC 9114 §5.2: H3_NO_ERROR for an orderly close.
      q.close(true, (int) StreamHandler.H3_NO_ERROR, Unpooled.EMPTY_BUFFER).addListener(f -> closeUdp.run());
    } else {
      closeUdp.run();
    }
  }

  private void terminate() {
    group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).addListener(f -> listener.transportTerminated());
  }

  @Override
  public String toString() {
    return "QuicClientTransport{" + address + ", version=" + version + '}';
  }
}
