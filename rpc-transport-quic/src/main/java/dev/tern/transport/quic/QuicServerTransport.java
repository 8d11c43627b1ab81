package dev.tern.transport.quic;

import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A QUIC server: one UDP socket on one event loop, HTTP/3 on every connection. Graceful shutdown
 * refuses new connections and streams (H3_REQUEST_REJECTED, so clients may retry elsewhere) and
 * closes each connection when its last call ends.
 */
final class QuicServerTransport implements ServerTransport {
  static {
    QuietNettyLogs.install();
  }

  private final InetSocketAddress bindAddress;
  private final TransportOptions options;
  /** Where this server reports its own events (bytes, refusals, resets, Retries, 0-RTT). */
  private final TransportEvents events;
  private final long versionBits;
  private final int maxInboundMessageBytes;
  private final Set<ServerConnection> connections = new LinkedHashSet<>();
  private final HandshakeAdmission admission;
  private final int maxPeerResetsPerWindow;
  private final long resetWindowNanos;
  private final dev.tern.rpc.spi.ThrottledLog excessiveResets = new dev.tern.rpc.spi.ThrottledLog(
      java.util.logging.Logger.getLogger("dev.tern.transport.quic"),
      "quic: connection closed for resetting too many streams (H3_EXCESSIVE_LOAD)",
      dev.tern.rpc.spi.ThrottledLog.DEFAULT_INTERVAL_NANOS);
  private EventLoopGroup group;
  private EventLoop loop;
  private Channel udp;
  private StatelessResets.Server resets;
  private volatile ServerTransportListener listener;
  private volatile boolean shutdown;
  private boolean terminated;

  QuicServerTransport(InetSocketAddress bindAddress, TransportOptions options) {
    this.bindAddress = bindAddress;
    this.options = options;
    this.events = options.get(TransportOptions.EVENTS);
    this.admission = new HandshakeAdmission(options);
    this.maxPeerResetsPerWindow = options.get(TransportOptions.MAX_RST_FRAMES_PER_WINDOW);
    if (maxPeerResetsPerWindow < 0) {
      throw new IllegalArgumentException("quic: maxRstFramesPerWindow must be >= 0 (0: no limit), was "
          + maxPeerResetsPerWindow);
    }
    int windowSeconds = options.get(TransportOptions.RST_FRAMES_WINDOW_SECONDS);
    if (windowSeconds <= 0) {
      throw new IllegalArgumentException("quic: rstFramesWindowSeconds must be > 0, was " + windowSeconds);
    }
    this.resetWindowNanos = TimeUnit.SECONDS.toNanos(windowSeconds);
    this.versionBits = TernVersions.toBits(options.get(TransportOptions.PROTOCOL_VERSIONS));
    this.maxInboundMessageBytes = options.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE);
  }

  @Override
  public void start(ServerTransportListener listener) throws IOException {
    if (this.listener != null) {
      throw new IllegalStateException("already started");
    }
    this.listener = java.util.Objects.requireNonNull(listener, "listener");
    QuicSslContext ssl = QuicTls.server(options.get(TransportOptions.TLS), options.get(QuicTransportOptions.EARLY_DATA));
    resets = new StatelessResets.Server(StatelessResets.masterKey(options.get(TransportOptions.TLS)));
    QuicServerCodecBuilder builder = QuicCodecs.apply(new QuicServerCodecBuilder(), options);
    io.netty.handler.codec.quic.QLogConfiguration qlog = QuicCodecs.qlog(options, "server on " + bindAddress);
    if (qlog != null) {
      builder.option(io.netty.handler.codec.quic.QuicChannelOption.QLOG, qlog);
    }
    ChannelHandler codec = builder
        .sslContext(ssl)
        // Connection IDs and reset tokens a restarted server can still read (StatelessResets).
        .localConnectionIdLength(StatelessResets.CID_BYTES)
        .connectionIdAddressGenerator(resets.ids())
        .resetTokenGenerator(resets.tokens())
        // Address validation (RFC 9000 §8.1.2) and the handshake and connection limits: Netty asks
        // the token handler about every Initial packet before it makes any state.
        .tokenHandler(admission)
        .handler(new ChannelInitializer<QuicChannel>() {
          @Override
          protected void initChannel(QuicChannel ch) {
            // Runs at once, in the turn in which the token handler decided about this connection.
            HandshakeAdmission.Pending admitted = admission.admit();
            if (admitted == null) {
              refuse(ch);
              return;
            }
            if (shutdown) {
              ch.closeFuture().addListener(f -> admission.closed(admitted));
              ch.close();
              return;
            }
            ServerConnection c = new ServerConnection(QuicServerTransport.this, ch, admitted);
            connections.add(c);
            c.install();
          }
        })
        .build();
    DatagramImpairment impairment = options.get(QuicTransportOptions.IMPAIRMENT);
    group = EventLoops.newGroup(1, "tern-quic-server");
    loop = group.next();
    ChannelFuture bound = new Bootstrap().group(loop).channel(NioDatagramChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            if (impairment != null) {
              ch.pipeline().addLast(new ImpairmentHandler(impairment));
            }
            ch.pipeline().addLast(new DatagramCounter(events), new MalformedDatagrams(events), resets.responder(events),
                codec);
          }
        })
        .bind(bindAddress).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      Throwable cause = bound.cause();
      throw new IOException("cannot bind QUIC server to UDP " + bindAddress + ": " + cause.getMessage(), cause);
    }
    udp = bound.channel();
    resets.bound();
  }

  @Override
  public SocketAddress listenAddress() {
    Channel ch = udp;
    return ch == null ? null : ch.localAddress();
  }

  /**
   * Closes a connection the limits do not admit: CONNECTION_REFUSED (RFC 9000 §20.1), sent once
   * quiche has read the client's Initial (the close goes out in the Initial space, to the client's
   * connection ID), so the client fails at once instead of after its handshake timeout.
   */
  private static void refuse(QuicChannel ch) {
    ch.eventLoop().execute(() -> ch.close(false, HandshakeAdmission.CONNECTION_REFUSED,
        io.netty.buffer.Unpooled.wrappedBuffer(REFUSED_REASON)));
  }

  private static final byte[] REFUSED_REASON =
      "server connection or handshake limit reached".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** Streams a client may reset before their answer per window; 0: no limit. */
  int maxPeerResetsPerWindow() { return maxPeerResetsPerWindow; }

  long resetWindowNanos() { return resetWindowNanos; }

  /** Connections closed for resetting too many streams. */
  dev.tern.rpc.spi.ThrottledLog excessiveResets() { return excessiveResets; }

  /**
   * The limits' counts at one moment: for tests and diagnostics.
   *
   * @param handshakes half-open connections now
   * @param connections connections now, half-open and established
   * @param peakHandshakes the most half-open connections at once so far
   * @param peakConnections the most connections at once so far
   * @param initials Initial packets seen that would start a connection
   * @param retries Retry packets sent
   * @param refused connections refused for a limit
   * @param badTokens Initial packets dropped for a forged or expired token
   * @param closedForResets connections closed for resetting too many streams
   * @param addressesInHandshake client addresses with a half-open connection now
   */
  record LimitCounts(int handshakes, int connections, int peakHandshakes, int peakConnections, long initials,
      long retries, long refused, long badTokens, long closedForResets, int addressesInHandshake) {}

  /** The limits' counts now, read on the server's loop. */
  LimitCounts limitCounts() throws InterruptedException, java.util.concurrent.ExecutionException {
    return loop.submit(() -> new LimitCounts(admission.handshakes(), admission.connections(),
        admission.peakHandshakes(), admission.peakConnections(), admission.initials(), admission.retries.count(),
        admission.refused.count(), admission.badTokens.count(), excessiveResets.count(),
        admission.addressesInHandshake())).get();
  }

  /** The handshake and connection limits and their counts; on the loop. */
  HandshakeAdmission admission() { return admission; }

  TransportOptions options() { return options; }

  /** Where this server's connections and streams report their events. */
  TransportEvents events() { return events; }

  /** Connection IDs, reset tokens and the stateless resets of a restarted server. */
  StatelessResets.Server resets() { return resets; }

  long versionBits() { return versionBits; }

  int maxInboundMessageBytes() { return maxInboundMessageBytes; }

  ServerTransportListener listener() { return listener; }

  boolean isShutdown() { return shutdown; }

  /** A connection's channel closed; on the loop. */
  void connectionClosed(ServerConnection c) {
    connections.remove(c);
    maybeTerminate();
  }

  @Override
  public void shutdown() {
    if (loop == null) {
      return;
    }
    // Set here, not on the loop: a stream that arrives after this call must be refused even if the
    // loop handles its datagram before this task.
    shutdown = true;
    EventLoops.run(loop, () -> {
      for (ServerConnection c : new ArrayList<>(connections)) {
        c.drain();
      }
      maybeTerminate();
    });
  }

  @Override
  public void shutdownNow(Status status) {
    if (loop == null) {
      return;
    }
    shutdown = true;
    EventLoops.run(loop, () -> {
      for (ServerConnection c : new ArrayList<>(connections)) {
        c.closeNow(status);
      }
      maybeTerminate();
    });
  }

  private void maybeTerminate() {
    if (!shutdown || terminated || !connections.isEmpty()) {
      return;
    }
    terminated = true;
    udp.close().addListener(f -> group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
        .addListener(g -> listener.serverTerminated()));
  }

  @Override
  public String toString() {
    return "QuicServerTransport{" + listenAddress() + '}';
  }
}
