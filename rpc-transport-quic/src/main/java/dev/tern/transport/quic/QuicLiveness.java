package dev.tern.transport.quic;

import io.grpc.Status;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http3.DefaultHttp3UnknownFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionPathStats;
import io.netty.handler.codec.quic.QuicConnectionStats;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicTransportParameters;
import io.netty.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Whether a client's QUIC connection still has a peer: keep-alive probes, dead-peer detection and
 * the check of a quiet connection before a call goes out on it. All on the connection's event
 * loop.
 *
 * <p>The probe. Netty's QUIC channel offers no PING, so the probe is an HTTP/3 frame of a reserved
 * type on the client's control stream: RFC 9114 §7.2.8 reserves the types {@code 0x1f * N + 0x21}
 * so that receivers ignore them, and as stream data it is ack-eliciting (RFC 9000 §13.2.1), which
 * is all a PING frame would give: the peer answers with an ACK, the NAT binding on the path is
 * refreshed, and both idle timers restart (RFC 9000 §10.1).
 *
 * <p>Dead-peer detection. Whenever the client sends something that asks for an answer (a call's
 * headers, data, end or reset, or a probe) while it is not already waiting for one, it notes
 * quiche's count of packets received and waits. Each probe timeout (RFC 9002 §6.2.1, from the
 * path's smoothed RTT and the server's max_ack_delay, doubling after each expiry as §6.2.1's
 * backoff) with no packet received sends a probe; when the third expires with still nothing
 * heard, and at least {@link #MIN_SILENCE_NANOS} has passed (5 s, so that calls ride out a mobile
 * link's outages), the peer is dead and the connection fails. (The check of a quiet connection
 * below waits three probe timeouts without backoff, at least {@link #CHECK_MIN_SILENCE_NANOS}.)
 * Quiche's own idle timeout (60 s by default) would otherwise be the first to notice a server that
 * crashed or restarted: it does not know the connection and stays silent (Netty's server drops
 * short-header packets for unknown connection IDs and sends no stateless reset).
 *
 * <p>Keep-alive. Every interval: if calls are open (or pinging without calls is asked for) and no
 * packet arrived since the last tick, a probe goes out and is awaited as above; a probe left
 * unanswered for the keep-alive timeout ends the connection too, should that come first.
 *
 * <p>A quiet connection is checked before use. A connection that heard nothing for a whole
 * keep-alive interval may have lost its server, and a call sent into it could neither be answered
 * nor safely sent again (the server may have received it). So a new call on such a connection
 * waits while a probe goes out: an answer (one round trip) releases it; the dead-peer rule above
 * ends the connection otherwise, and the call, never sent, is refused unprocessed and sent again
 * on a new connection.
 */
final class QuicLiveness {
  /** A reserved HTTP/3 frame type (RFC 9114 §7.2.8): 0x1f * 7 + 0x21. */
  static final long PROBE_FRAME_TYPE = 0x1fL * 7 + 0x21;
  /** Used when the channel names no interval: FIELD-NOTES' NAT bindings expire after 15-30 s. */
  static final long DEFAULT_INTERVAL_MILLIS = 15_000;
  /** Probe timeouts expired with nothing heard after which the peer is dead. */
  static final int DEAD_AFTER_PROBE_TIMEOUTS = 3;
  /**
   * The least silence taken for a dead peer while calls are in flight, whatever the probe
   * timeouts say: mobile links lose their uplink for seconds (feedback outages up to 2 s in the
   * udp simulator's lte-att trace), which calls must ride out; and on loopback three backed-off
   * PTOs last under 0.2 s, less than a loaded host may take to schedule a busy server.
   */
  static final long MIN_SILENCE_NANOS = TimeUnit.SECONDS.toNanos(5);
  /**
   * The least silence for the check of a quiet connection with no call in flight: a wrong
   * verdict loses nothing (the held calls go to a new connection), and they wait for it.
   */
  static final long CHECK_MIN_SILENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  /** RFC 9002 §6.1.2 kGranularity. */
  private static final long GRANULARITY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** RFC 9002 §6.2.2: before any RTT sample, 333 ms. */
  private static final long INITIAL_RTT_NANOS = TimeUnit.MILLISECONDS.toNanos(333);

  private final QuicChannel quic;
  private final long intervalMillis;
  private final long keepAliveTimeoutNanos;
  private final long ownMaxAckDelayMillis;
  private final boolean withoutCalls;
  private final BooleanSupplier callsOpen;
  private final BooleanSupplier callsInFlight;
  private final Consumer<Status> dead;
  private final Runnable verified;
  private ScheduledFuture<?> ticks;
  private ScheduledFuture<?> check;
  private boolean stopped;
  private long receivedAtLastTick = -1;
  /** The last tick found no packet received over the whole interval before it. */
  private boolean quietAtLastTick;
  /** {@code System.nanoTime()} when the answer being waited for was asked; 0: none awaited. */
  private long awaitingSinceNanos;
  /** Packets received when the wait began. */
  private long receivedAtAwait;
  /** Probe timeouts expired in the current wait. */
  private int expired;
  /** The probe timeout of the current wait, before backoff. */
  private long ptoNanos;
  /** When {@link #ptoNanos} was last computed; 0: never. */
  private long ptoComputedAtNanos;
  /** How long a computed probe timeout is used before quiche's RTT is read again. */
  private static final long PTO_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** Something that asks for an answer was sent after the current wait began. */
  private boolean sentDuringWait;
  /** A call waits for the quiet connection to prove alive. */
  private boolean verifying;
  /** The current wait began with a keep-alive probe: its answer does not count as traffic. */
  private boolean keepAliveWait;
  /** A datagram's arrival should make the wait look at once (a call waits for the answer). */
  private boolean wantArrival;
  private final Runnable lookNow = this::lookNow;
  private volatile long probesSent;
  private volatile long quietChecks;

  /**
   * @param dead told once, with the status for the calls, when the peer is found dead
   * @param verified told when a quiet connection answered the probe that checked it
   */
  QuicLiveness(QuicChannel quic, long intervalMillis, long keepAliveTimeoutMillis, long ownMaxAckDelayMillis,
      boolean withoutCalls, BooleanSupplier callsOpen, BooleanSupplier callsInFlight, Consumer<Status> dead,
      Runnable verified) {
    this.quic = quic;
    this.intervalMillis = intervalMillis > 0 ? intervalMillis : DEFAULT_INTERVAL_MILLIS;
    this.keepAliveTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(keepAliveTimeoutMillis > 0 ? keepAliveTimeoutMillis
        : Long.MAX_VALUE / 2_000_000);
    this.ownMaxAckDelayMillis = ownMaxAckDelayMillis;
    this.withoutCalls = withoutCalls;
    this.callsOpen = callsOpen;
    this.callsInFlight = callsInFlight;
    this.dead = dead;
    this.verified = verified;
  }

  /** Starts the ticks; on the connection's event loop. */
  void start() {
    receivedAtLastTick = packetsReceived();
    ticks = quic.eventLoop().scheduleAtFixedRate(this::tick, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  /** Stops for good; on any thread. */
  void stop() {
    stopped = true;
    ScheduledFuture<?> t = ticks;
    if (t != null) {
      t.cancel(false);
    }
    ScheduledFuture<?> c = check;
    if (c != null) {
      c.cancel(false);
    }
  }

  /** Probes sent so far (any thread). */
  long probesSent() {
    return probesSent;
  }

  /** Times a call waited for a quiet connection to answer a probe (any thread). */
  long quietChecks() {
    return quietChecks;
  }

  /**
   * Something that asks for an answer (stream data, a FIN, a reset) was handed to quiche; on the
   * loop. Cheap when a wait is already running: one field write.
   */
  void onSend() {
    if (stopped) {
      return;
    }
    if (awaitingSinceNanos != 0) {
      sentDuringWait = true;
    } else {
      await();
    }
  }

  /**
   * Whether a new call may go out now; on the loop. False when the connection has heard nothing
   * for a whole keep-alive interval: a probe then checks it, and {@code verified} is told when it
   * answers (the dead-peer rule ends the connection otherwise).
   */
  boolean usable() {
    if (stopped) {
      return true; // the connection's end decides
    }
    if (verifying) {
      return false;
    }
    if (!quietAtLastTick) {
      return true;
    }
    long received = packetsReceived();
    if (received < 0 || received != receivedAtLastTick) {
      quietAtLastTick = false;
      return true; // heard since the tick that found it quiet
    }
    verifying = true;
    quietChecks = quietChecks + 1; // written on the event loop only
    if (awaitingSinceNanos == 0) {
      await();
    }
    wantArrival = true;
    sendProbe();
    return false;
  }

  private long packetsReceived() {
    Future<QuicConnectionStats> f = quic.collectStats();
    // On the event loop Netty answers at once.
    return f.isDone() && f.isSuccess() ? f.getNow().recv() : -1;
  }

  /**
   * The probe timeout (RFC 9002 §6.2.1): smoothed_rtt + max(4 * rttvar, kGranularity) +
   * max_ack_delay. quiche's path statistics give the smoothed RTT only, so rttvar is taken as half
   * of it, the value RFC 9002 §5.3 starts from; the server's max_ack_delay comes from its
   * transport parameters.
   */
  private long probeTimeoutNanos() {
    Future<QuicConnectionPathStats> f = quic.collectPathStats(0);
    long srtt = f.isDone() && f.isSuccess() ? f.getNow().rtt() : 0;
    if (srtt <= 0) {
      srtt = INITIAL_RTT_NANOS;
    }
    QuicTransportParameters peer = quic.peerTransportParameters();
    long maxAckDelayMillis = peer != null ? peer.maxAckDelay() : ownMaxAckDelayMillis;
    // RFC 9000 §18.2: values of 2^14 or more are invalid; quiche would have refused them.
    long ackDelay = TimeUnit.MILLISECONDS.toNanos(Math.min(Math.max(maxAckDelayMillis, 0), 1 << 14));
    return srtt + Math.max(2 * srtt, GRANULARITY_NANOS) + ackDelay;
  }

  /** Begins waiting for any packet from the peer. */
  private void await() {
    long received = packetsReceived();
    if (received < 0) {
      return; // the connection is going away
    }
    receivedAtAwait = received;
    long now = System.nanoTime();
    awaitingSinceNanos = now;
    expired = 0;
    sentDuringWait = false;
    keepAliveWait = false;
    if (ptoComputedAtNanos == 0 || now - ptoComputedAtNanos > PTO_REFRESH_NANOS) {
      // Reading the path's statistics builds objects; a wait starts for each call's first write,
      // so the RTT is read at most once a second.
      ptoNanos = probeTimeoutNanos();
      ptoComputedAtNanos = now;
    }
    schedule(ptoNanos);
  }

  private void cancelCheck() {
    ScheduledFuture<?> c = check;
    if (c != null) {
      c.cancel(false);
      check = null;
    }
  }

  private void schedule(long delayNanos) {
    cancelCheck();
    check = quic.eventLoop().schedule(this::check, Math.max(delayNanos, GRANULARITY_NANOS), TimeUnit.NANOSECONDS);
  }

  private void check() {
    check = null;
    if (stopped || awaitingSinceNanos == 0) {
      return;
    }
    if (!quic.isActive()) {
      stop();
      return;
    }
    long received = packetsReceived();
    if (received < 0) {
      return;
    }
    if (received != receivedAtAwait) {
      heard(received);
      return;
    }
    long now = System.nanoTime();
    long silent = now - awaitingSinceNanos;
    expired++;
    // The check of a quiet connection with no call in flight: three probe timeouts without
    // backoff, at least CHECK_MIN_SILENCE_NANOS; a wrong verdict only sends the held calls to a new
    // connection. Otherwise three backed-off probe timeouts, at least MIN_SILENCE_NANOS.
    boolean checkOnly = verifying && !callsInFlight.getAsBoolean();
    long checkDeadline = Math.max(DEAD_AFTER_PROBE_TIMEOUTS * ptoNanos, CHECK_MIN_SILENCE_NANOS);
    boolean deadNow = checkOnly ? silent >= checkDeadline
        : expired >= DEAD_AFTER_PROBE_TIMEOUTS && silent >= MIN_SILENCE_NANOS;
    if (deadNow || silent >= keepAliveTimeoutNanos) {
      declareDead(silent);
      return;
    }
    // RFC 9002 §6.2.4: a probe, so that something ack-eliciting is outstanding even when what was
    // sent sits in quiche's buffers (flow control, congestion window); quiche sends its own too.
    sendProbe();
    long next = ptoNanos << Math.min(expired, 20);
    if (checkOnly) {
      next = Math.min(next, checkDeadline - silent);
    } else if (expired >= DEAD_AFTER_PROBE_TIMEOUTS) {
      next = MIN_SILENCE_NANOS - silent;
    }
    schedule(Math.min(next, keepAliveTimeoutNanos - silent));
  }

  /**
   * A datagram arrived on the connection's socket (called by the socket's pipeline before the
   * codec reads it); on the loop. While a call waits for a quiet connection to answer, the wait
   * looks at quiche's count once the datagram has been read, so the call leaves one round trip
   * after the probe rather than at the next probe timeout. No allocation.
   */
  void onDatagram() {
    if (wantArrival) {
      wantArrival = false;
      quic.eventLoop().execute(lookNow);
    }
  }

  private void lookNow() {
    if (stopped || awaitingSinceNanos == 0) {
      return;
    }
    long received = packetsReceived();
    if (received >= 0 && received != receivedAtAwait) {
      heard(received);
    } else if (verifying) {
      wantArrival = true;
    }
  }

  /** A packet arrived after the wait began: the peer is there. */
  private void heard(long received) {
    cancelCheck();
    awaitingSinceNanos = 0;
    expired = 0;
    wantArrival = false;
    if (keepAliveWait) {
      // The probe's answer is not traffic: a connection that stays quiet is probed again one
      // interval later.
      receivedAtLastTick = received;
      keepAliveWait = false;
    }
    if (verifying) {
      verifying = false;
      quietAtLastTick = false;
      verified.run();
    }
    if (sentDuringWait && !stopped) {
      await(); // what was sent since the wait began has its own answer to wait for
    }
  }

  private void declareDead(long silentNanos) {
    stop();
    wantArrival = false;
    long silentMillis = TimeUnit.NANOSECONDS.toMillis(silentNanos);
    long ptoMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(ptoNanos));
    dead.accept(Status.UNAVAILABLE.withDescription("QUIC connection to " + quic.remoteSocketAddress()
        + " is dead: the peer stopped answering (no answer for " + silentMillis + " ms, "
        + expired + " probe timeouts of " + ptoMillis + " ms and more; the server may have crashed or restarted)"));
  }

  private void tick() {
    if (stopped) {
      return;
    }
    if (!quic.isActive()) {
      stop();
      return;
    }
    long received = packetsReceived();
    boolean quiet = received >= 0 && received == receivedAtLastTick;
    receivedAtLastTick = received;
    quietAtLastTick = quiet;
    if (awaitingSinceNanos != 0 || !quiet || !(withoutCalls || callsOpen.getAsBoolean())) {
      return; // an answer is awaited already (its checks decide), traffic flows, or nothing to keep
    }
    await();
    keepAliveWait = true;
    sendProbe();
  }

  private void sendProbe() {
    QuicStreamChannel control = Http3.getLocalControlStream(quic);
    if (control == null || !control.isActive()) {
      return;
    }
    probesSent = probesSent + 1; // written on the event loop only
    control.writeAndFlush(new DefaultHttp3UnknownFrame(PROBE_FRAME_TYPE, Unpooled.EMPTY_BUFFER));
  }
}
