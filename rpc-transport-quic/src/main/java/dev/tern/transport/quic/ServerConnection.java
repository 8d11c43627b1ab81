package dev.tern.transport.quic;

import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Attributes;
import io.grpc.SecurityLevel;
import io.grpc.Status;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http3.DefaultHttp3GoAwayFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3SettingsFrame;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** The server's state for one QUIC connection; confined to the connection's event loop. */
final class ServerConnection {
  private final QuicServerTransport transport;
  private final QuicChannel channel;
  private final Set<QuicServerStream> streams = new LinkedHashSet<>();
  private final QuicStats stats;
  /** How long a drained connection waits for the client to close it before the server does. */
  static final long CLOSE_GRACE_MILLIS = 5_000;
  private volatile int version;
  private long maxStreamId = -1;
  private boolean goAwaySent;
  private volatile boolean earlyData;
  /** Fires {@link TransportOptions#IDLE_TIMEOUT_MILLIS} after the last stream ended; null when armed off. */
  private ScheduledFuture<?> idleTimer;
  /** When the connection last had no stream ({@link System#nanoTime}); on the loop. */
  private long idleSinceNanos;
  /** The call layer's listener of this connection's events. */
  private ServerTransportListener.ConnectionListener events;
  /** What {@code connectionReady} returned, once the handshake is done; null before. */
  private volatile Attributes attributes;
  private boolean terminatedReported;

  /** This connection's place in the server's handshake and connection counts. */
  private final HandshakeAdmission.Pending admitted;
  /** Streams the client reset before the server answered, in the current window (rapid reset). */
  private int peerResetsInWindow;
  private long resetWindowStartNanos;
  private boolean closedForResets;
  /** Streams refused after the GOAWAY of a drain for resets. */
  private int refusedAfterGoAway;
  /** Whether the connection is being drained for resets. */
  private boolean draining;
  /** The code the connection is closed with once drained: H3_NO_ERROR, or H3_EXCESSIVE_LOAD after resets. */
  private long closeCode = StreamHandler.H3_NO_ERROR;

  ServerConnection(QuicServerTransport transport, QuicChannel channel, HandshakeAdmission.Pending admitted) {
    this.transport = transport;
    this.channel = channel;
    this.admitted = admitted;
    this.stats = new QuicStats(transport.events());
    stats.attach(channel);
  }

  /** The connection's cached statistics. */
  QuicStats stats() { return stats; }

  /** Installs HTTP/3 and this connection's handlers on the QUIC channel. */
  void install() {
    // Reported at once, before the handshake: the call layer closes a connection whose handshake
    // outlasts the server's handshake timeout through this handle.
    events = transport.listener().connectionCreated(
        status -> channel.eventLoop().execute(() -> closeNow(status)));
    // A ChannelInitializer per stream: the handler Netty gets is @Sharable, each stream gets its own
    // QuicServerStream (a shared stateful handler would stall the second connection).
    ChannelHandler requestStreams = new ChannelInitializer<QuicStreamChannel>() {
      @Override
      protected void initChannel(QuicStreamChannel ch) {
        ch.config().setAutoRead(false);
        ch.pipeline().addLast(new QuicServerStream(ServerConnection.this));
      }
    };
    channel.pipeline().addLast(new Http3ServerConnectionHandler(requestStreams, new ControlFrames(), null,
        LocalSettings.frame(transport.versionBits(), transport.options(),
            transport.resets().secretOf(StatelessResets.idBytes(channel.localAddress()))),
        true, LocalSettings.VALIDATOR));
    channel.pipeline().addLast(new ConnectionEvents());
    // The close future, not channelInactive: a connection closed before its handshake completed
    // never was active and never hears channelInactive.
    channel.closeFuture().addListener(f -> closed());
    // Netty reads a server connection's streams only after a read is requested, and autoRead asks
    // for one only when the connection turns active, at the end of the handshake. Asking now lets
    // quiche hand over streams that arrived in 0-RTT packets at once (RFC 9001 §4.6.1) instead of a
    // round trip later, which is the point of 0-RTT.
    channel.read();
    scheduleAgeAndIdle();
  }

  /**
   * The server's connection limits, as grpc-netty carries them out ({@code NettyServerBuilder}'s
   * {@code maxConnectionAge}, {@code maxConnectionAgeGrace} and {@code maxConnectionIdle}): past its
   * age, with a jitter of ±10%, the connection is drained (GOAWAY) and, once the grace has passed
   * too, closed with the calls still on it; a connection with no stream for the idle time is
   * drained.
   */
  private void scheduleAgeAndIdle() {
    TransportOptions o = transport.options();
    long age = o.get(TransportOptions.MAX_CONNECTION_AGE_MILLIS);
    if (age > 0) {
      long jittered = (long) (age * (0.9 + 0.2 * java.util.concurrent.ThreadLocalRandom.current().nextDouble()));
      channel.eventLoop().schedule(this::ageReached, Math.max(1, jittered), TimeUnit.MILLISECONDS);
    }
    armIdleTimer();
  }

  private void ageReached() {
    drain();
    long grace = transport.options().get(TransportOptions.MAX_CONNECTION_AGE_GRACE_MILLIS);
    if (grace > 0 && channel.isOpen()) {
      channel.eventLoop().schedule(() -> closeNow(Status.UNAVAILABLE.withDescription(
          "connection closed: its maximum age and grace time (" + grace + " ms) have passed")),
          grace, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The idle timer runs from the moment the last stream closed. It is not moved per call: a
   * stream's open and close only note the time, and the timer, when it fires, looks whether the
   * connection has been without streams for the whole idle time, and otherwise waits out the rest
   * (as grpc-netty's max-connection-idle does). Scheduling and cancelling a timer per call cost
   * the server's event loop more than the rest of a small unary call's bookkeeping.
   */
  private void armIdleTimer() {
    idleSinceNanos = System.nanoTime();
    long idle = TransportOptions.serverIdleTimeoutMillis(transport.options());
    if (idle > 0 && idleTimer == null && !goAwaySent) {
      scheduleIdleCheck(TimeUnit.MILLISECONDS.toNanos(idle));
    }
  }

  private void scheduleIdleCheck(long delayNanos) {
    idleTimer = channel.eventLoop().schedule(this::checkIdle, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void checkIdle() {
    idleTimer = null;
    if (!streams.isEmpty() || goAwaySent) {
      return; // the last stream's close starts the wait again
    }
    long idleNanos = TimeUnit.MILLISECONDS.toNanos(TransportOptions.serverIdleTimeoutMillis(transport.options()));
    long left = idleNanos - (System.nanoTime() - idleSinceNanos);
    if (left > 0) {
      scheduleIdleCheck(left);
    } else {
      drain();
    }
  }

  QuicChannel channel() { return channel; }

  int version() { return version; }

  boolean earlyData() { return earlyData; }

  /**
   * Whether the handshake is still open: a server connection turns active when the client's
   * Finished arrives, so a stream read before that came in 0-RTT packets.
   */
  boolean inEarlyData() {
    return !channel.isActive();
  }

  int maxInboundMessageBytes() { return transport.maxInboundMessageBytes(); }

  dev.tern.rpc.spi.TransportOptions options() { return transport.options(); }

  long cancelProbeMillis() { return transport.options().get(QuicTransportOptions.CANCEL_PROBE_MILLIS); }

  ServerTransportListener transportListener() { return transport.listener(); }

  /** False once the server shuts down or this connection was sent GOAWAY (its age, idleness). */
  boolean acceptsStreams() { return !transport.isShutdown() && !goAwaySent; }

  /** Where this connection's streams report their events. */
  dev.tern.rpc.spi.TransportEvents events() { return transport.events(); }

  /**
   * A stream's request HEADERS arrived. The first that came in 0-RTT packets is reported as the
   * connection's early data accepted: quiche took it (a server that rejects 0-RTT never reads it).
   */
  void streamOpened(QuicServerStream s) {
    if (s.receivedAsEarlyData() && !earlyData) {
      earlyData = true;
      transport.events().earlyData(true);
    }
    maxStreamId = Math.max(maxStreamId, s.streamId());
    streams.add(s);
  }

  void streamClosed(QuicServerStream s) {
    stats.refresh();
    streams.remove(s);
    if (streams.isEmpty() && (transport.isShutdown() || goAwaySent)) {
      drain();
    } else if (streams.isEmpty()) {
      armIdleTimer();
    }
  }

  /**
   * Graceful end: GOAWAY (RFC 9114 §5.2) tells the client to open no more streams here; once its
   * calls are done the client closes the connection itself, after every response byte has been
   * acknowledged, which a server close would not wait for. A client that does not close is closed
   * after {@link #CLOSE_GRACE_MILLIS}.
   */
  void drain() {
    if (!channel.isOpen()) {
      return;
    }
    if (!goAwaySent) {
      goAwaySent = true;
      QuicStreamChannel control = Http3.getLocalControlStream(channel);
      if (control != null) {
        // The first client-initiated bidirectional stream not processed (RFC 9000 §2.1: ids 4n).
        control.writeAndFlush(new DefaultHttp3GoAwayFrame(maxStreamId < 0 ? 0 : maxStreamId + 4));
      }
    }
    if (streams.isEmpty()) {
      channel.eventLoop().schedule(this::close, CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Closes the connection (H3_NO_ERROR; H3_EXCESSIVE_LOAD once drained for resets); open streams
   * end with UNAVAILABLE.
   */
  void close() {
    if (channel.isOpen()) {
      channel.close(true, (int) closeCode, io.netty.buffer.Unpooled.EMPTY_BUFFER);
    }
  }

  /** Cancels every stream with {@code status}, then closes. */
  void closeNow(Status status) {
    for (QuicServerStream s : new ArrayList<>(streams)) {
      s.resetStream(StreamHandler.H3_REQUEST_CANCELLED);
      s.end(status);
    }
    close();
  }

  /**
   * The client reset a stream before the server had answered it (RESET_STREAM or STOP_SENDING).
   * HTTP/3's form of "rapid reset" (CVE-2023-44487): streams opened and cancelled at once make the
   * server start call after call while the client stays under its stream limit, as on HTTP/2. Past
   * {@link TransportOptions#MAX_RST_FRAMES_PER_WINDOW} such streams in {@link
   * TransportOptions#RST_FRAMES_WINDOW_SECONDS} (a fixed window, as grpc-java's) the connection is
   * ended with H3_EXCESSIVE_LOAD (RFC 9114 §8.1: "the endpoint detected that its peer is exhibiting
   * a behavior that might be generating excessive load"), so that a legitimate client whose calls
   * time out or are cancelled together loses none of its other calls:
   *
   * <ul>
   *   <li>With no stream open, it is closed at once: nothing is in flight to spare. A client that
   *       only resets streams is cut off so, at the reset past the limit.
   *   <li>Otherwise it is drained first ({@link #drain}: GOAWAY, RFC 9114 §5.2): the client opens
   *       no new streams here and its calls in flight run to their end, however long (a client
   *       holding streams open without resetting them is an ordinary client); then it is closed
   *       with H3_EXCESSIVE_LOAD (after the client's own close or {@link #CLOSE_GRACE_MILLIS}).
   *       Resets are not counted meanwhile: the client may cancel every call it has open, and a
   *       stream it opens after the GOAWAY is refused unprocessed (H3_REQUEST_REJECTED), which
   *       starts no work.
   * </ul>
   *
   * On the loop.
   */
  void peerResetBeforeAnswer() {
    int max = transport.maxPeerResetsPerWindow();
    if (max <= 0 || closedForResets) {
      return;
    }
    if (draining) {
      return; // the client may cancel every call it has open; it can open no more here
    }
    long now = System.nanoTime();
    if (peerResetsInWindow == 0 || now - resetWindowStartNanos > transport.resetWindowNanos()) {
      resetWindowStartNanos = now;
      peerResetsInWindow = 0;
    }
    if (++peerResetsInWindow > max) {
      transport.events().refused(dev.tern.rpc.spi.TransportEvents.RAPID_RESET);
      transport.excessiveResets().event(transport.excessiveResets().wouldLog()
          ? channel.remoteSocketAddress() + ": " + peerResetsInWindow + " streams reset within "
              + TimeUnit.NANOSECONDS.toSeconds(transport.resetWindowNanos()) + " s" : null);
      if (streams.isEmpty()) {
        closeForResets("more than " + max + " streams reset before their answer within "
            + TimeUnit.NANOSECONDS.toSeconds(transport.resetWindowNanos()) + " s");
        return;
      }
      draining = true;
      closeCode = StreamHandler.H3_EXCESSIVE_LOAD;
      drain();
    }
  }

  /**
   * A stream opened after the GOAWAY was refused unprocessed. A client that goes on opening streams
   * on a connection drained for resets ignores the GOAWAY (RFC 9114 §5.2: it must open none at or
   * past the GOAWAY's id), and each refusal still costs the server a stream's state and packets:
   * past {@link TransportOptions#MAX_RST_FRAMES_PER_WINDOW} of them the connection is ended at once
   * with H3_EXCESSIVE_LOAD, without waiting for the drain's grace. A client that heeds the GOAWAY
   * opens at most the streams it sent within a round trip of it. On the loop.
   */
  void streamRefusedAfterGoAway() {
    int max = transport.maxPeerResetsPerWindow();
    if (draining && max > 0 && ++refusedAfterGoAway > max) {
      closeForResets("more than " + max + " streams opened after the GOAWAY of a connection drained for"
          + " resetting streams");
    }
  }

  /** Ends the connection at once with H3_EXCESSIVE_LOAD, its open streams with it. */
  private void closeForResets(String why) {
    if (closedForResets || !channel.isOpen()) {
      return;
    }
    closedForResets = true;
    Status status = Status.UNAVAILABLE.withDescription("QUIC connection closed: the client reset too many streams "
        + "before their answer (" + why + "; H3_EXCESSIVE_LOAD)");
    for (QuicServerStream s : new ArrayList<>(streams)) {
      s.resetStream(StreamHandler.H3_REQUEST_CANCELLED);
      s.end(status);
    }
    channel.close(true, (int) StreamHandler.H3_EXCESSIVE_LOAD, io.netty.buffer.Unpooled.EMPTY_BUFFER);
  }

  private void closed() {
    transport.admission().closed(admitted);
    for (QuicServerStream s : new ArrayList<>(streams)) {
      s.end(Status.UNAVAILABLE.withDescription("QUIC connection closed"));
    }
    streams.clear();
    if (!terminatedReported) {
      terminatedReported = true;
      events.connectionTerminated();
    }
    transport.connectionClosed(this);
  }

  /**
   * The attributes of this connection's streams: reports the connection ready first if its
   * handshake is done and that was not reported yet (a stream read in the same turn as the
   * client's Finished may come before the channel's active event). On the loop.
   *
   * @return what the call layer made of the connection's attributes; null while the handshake is
   *     still open (a 0-RTT stream)
   */
  Attributes readyAttributes() {
    if (attributes == null && channel.isActive() && !terminatedReported) {
      transport.admission().established(admitted); // no longer half-open, from the same moment
      // QUIC always runs TLS 1.3 (RFC 9001).
      attributes = events.connectionReady(ConnectionAttributes.of(stats.snapshot(version, earlyData),
          SecurityLevel.PRIVACY_AND_INTEGRITY));
    }
    return attributes;
  }

  private final class ControlFrames extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http3SettingsFrame) {
          Long bits = ((Http3SettingsFrame) msg).settings().get(TernVersions.SETTING_ID);
          version = TernVersions.highestCommon(transport.versionBits(), bits == null ? TernVersions.PLAIN_GRPC : bits);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }
  }

  private final class ConnectionEvents extends ChannelInboundHandlerAdapter {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      transport.admission().established(admitted);
      readyAttributes(); // the handshake is done (RFC 9001 §4.1.1)
      ctx.fireChannelActive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // A connection-level error (an HTTP/3 protocol violation): Netty closes the connection.
    }
  }
}
