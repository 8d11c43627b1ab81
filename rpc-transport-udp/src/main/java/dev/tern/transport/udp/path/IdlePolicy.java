package dev.tern.transport.udp.path;

import dev.tern.transport.udp.util.Saturating;

/**
 * Keep-alive and idle timeout as a sans-IO policy. While the connection has open streams or the
 * application asked to stay connected, a PING goes out after {@code keepAliveIntervalNs} without
 * traffic (FIELD-NOTES: NAT bindings for UDP time out after 15-30 s idle, so 15 s by default);
 * otherwise the connection is left to go quiet. After {@code idleTimeoutNs} without receiving
 * anything the connection closes silently (RFC 9000 §10.1), the timeout being at least three
 * probe timeouts so a slow path is not mistaken for a dead one.
 *
 * <p>The keep-alive is what defers the idle timeout (RFC 9000 §10.1.2): the PING restarts the
 * peer's idle timer when it arrives and ours when its acknowledgement does. So that the idle
 * timeout never ends a connection the keep-alive is keeping, the interval is capped at half the
 * idle timeout in force (the peer may negotiate a shorter one than ours): the PING then never
 * leaves close to the effective timeout, where RFC 9000 §10.1.1 warns the peer may already have
 * discarded the connection, and a lost PING is still repaired by a probe before it.
 *
 * <p>With a keep-alive timeout, a PING that draws no packet at all within it ends the connection
 * ({@link Action#KEEP_ALIVE_TIMEOUT}), sooner than the idle timeout would.
 *
 * <p>A client whose calls wait ({@link #setProbeWhileWaiting}) does not wait the whole interval
 * when nothing arrives: after a probe timeout without receiving anything it sends a PING, then
 * after twice that, four times, and so on (RFC 9002 §6.2.1's backoff), each counted from the
 * last receipt, up to the keep-alive interval, at which they go on for as long as calls are
 * open. The backoff restarts when a call opens and when an ack-eliciting packet arrives (the
 * peer is sending again: a later silence is a new one), not on a bare acknowledgement (the
 * PING's own would restart it), so a quiet call costs about log2(interval / probe timeout) such
 * PINGs and then one per interval. A keep-alive PING counts as the waiting PING due with it, so
 * the two never go out back to back. A server sends to the address it last heard the client
 * from, so after a NAT
 * rebinding the client's datagrams are the only way the server can learn the new address (RFC
 * 9000 §9.3); a client that only waits for a response says nothing, and the server's answers,
 * probes included, go to the old address until the keep-alive. The PING shows the new address
 * within a probe timeout. On a path that merely stays silent it costs a few PINGs, backed off.
 * Only while keep-alive is on (the application may want silent calls to time out).
 */
public final class IdlePolicy {
  /** Default keep-alive interval: 15 s. */
  public static final long DEFAULT_KEEP_ALIVE_NS = 15_000_000_000L;
  /** Default idle timeout: 60 s. */
  public static final long DEFAULT_IDLE_TIMEOUT_NS = 60_000_000_000L;

  /** What {@link #onTimeout} asks the connection to do. */
  public enum Action {
    /** Nothing is due. */
    NONE,
    /** Send an ack-eliciting PING to keep the path's NAT bindings alive. */
    SEND_PING,
    /**
     * Send an ack-eliciting PING because a call waits and nothing has arrived for a probe timeout
     * (backed off): it shows the server the client's current address.
     */
    SEND_WAITING_PING,
    /** The idle timeout expired: discard the connection silently (RFC 9000 §10.1). */
    CLOSE,
    /**
     * A keep-alive PING drew no packet within the keep-alive timeout: the peer is unreachable;
     * discard the connection.
     */
    KEEP_ALIVE_TIMEOUT
  }

  private final long keepAliveIntervalNs;
  private final long keepAliveTimeoutNs;
  private long idleTimeoutNs;
  /** When the outstanding keep-alive PING's time is up; Long.MAX_VALUE with none outstanding. */
  private long pingDeadlineNs = Long.MAX_VALUE;
  private long lastReceiveNs;
  private long lastActivityNs;
  private boolean ackElicitingSentSinceReceive;
  private int openStreams;
  private boolean keepConnected;
  /** Whether PINGs go out while calls wait and nothing arrives (a client). */
  private boolean probeWhileWaiting;
  /** Waiting PINGs sent since anything was received (the backoff's exponent). */
  private int waitingProbes;
  /** The last receipt, or the last waiting PING, from which the next one is timed. */
  private long waitingSinceNs;

  /**
   * A policy pinging after {@code keepAliveIntervalNs} of quiet (0 disables keep-alive) and closing
   * after {@code idleTimeoutNs} without receiving (0: never); the connection starts at
   * {@code nowNs}.
   */
  public IdlePolicy(long keepAliveIntervalNs, long idleTimeoutNs, long nowNs) {
    this(keepAliveIntervalNs, 0, idleTimeoutNs, nowNs);
  }

  /**
   * A policy as {@link #IdlePolicy(long, long, long)} whose keep-alive PINGs must draw a packet
   * within {@code keepAliveTimeoutNs} (0: no such limit, the idle timeout alone decides).
   */
  public IdlePolicy(long keepAliveIntervalNs, long keepAliveTimeoutNs, long idleTimeoutNs,
      long nowNs) {
    if (keepAliveTimeoutNs < 0) {
      throw new IllegalArgumentException(
          "keepAliveTimeoutNs must not be negative, was " + keepAliveTimeoutNs);
    }
    this.keepAliveTimeoutNs = keepAliveTimeoutNs;
    if (keepAliveIntervalNs < 0) {
      throw new IllegalArgumentException(
          "keepAliveIntervalNs must not be negative, was " + keepAliveIntervalNs);
    }
    if (idleTimeoutNs < 0) {
      throw new IllegalArgumentException("idleTimeoutNs must not be negative, was " + idleTimeoutNs);
    }
    this.keepAliveIntervalNs = keepAliveIntervalNs;
    this.idleTimeoutNs = idleTimeoutNs;
    this.lastReceiveNs = nowNs;
    this.lastActivityNs = nowNs;
  }

  /**
   * The idle timeout in force after negotiation (RFC 9000 §10.1: the smaller of both sides'
   * non-zero values), 0 for none.
   */
  public void setIdleTimeoutNs(long ns) {
    if (ns < 0) {
      throw new IllegalArgumentException("ns must not be negative, was " + ns);
    }
    idleTimeoutNs = ns;
  }

  /**
   * The connection's clock starts: a connection created before anyone told it the time (a server
   * connection opened by a datagram at {@code nowNs}) counts its idle timer from here, so that one
   * whose first packet was dropped still times out {@code idleTimeoutNs} after it appeared.
   */
  public void start(long nowNs) {
    waitingSinceNs = nowNs;
    lastReceiveNs = nowNs;
    lastActivityNs = nowNs;
  }

  /** A packet was received and processed: the idle timer restarts (RFC 9000 §10.1). */
  public void onPacketReceived(long nowNs) {
    onPacketReceived(nowNs, false);
  }

  /**
   * As {@link #onPacketReceived(long)}; an ack-eliciting packet ({@code ackEliciting}) also
   * restarts the waiting PINGs' backoff from one probe timeout: the peer is sending, so a silence
   * after it is a new one (a NAT rebinding that cut the peer's data off, say), to be probed soon.
   * A bare acknowledgement (of a waiting PING, say) does not.
   *
   * @param nowNs when the packet was processed
   * @param ackEliciting whether the packet was ack-eliciting (RFC 9000 §13.2.1)
   */
  public void onPacketReceived(long nowNs, boolean ackEliciting) {
    if (ackEliciting) {
      waitingProbes = 0;
    }
    waitingSinceNs = nowNs;
    lastReceiveNs = nowNs;
    lastActivityNs = nowNs;
    ackElicitingSentSinceReceive = false;
    pingDeadlineNs = Long.MAX_VALUE; // the peer is there: the PING is answered
  }

  /**
   * The keep-alive PING {@link #onTimeout} asked for is going out now: with a keep-alive timeout,
   * the peer has that long to send any packet, and at least one probe timeout (RFC 9002 §6.2.1:
   * the time within which its acknowledgement is expected), so that a timeout set below the
   * path's round trip does not declare a live peer dead.
   */
  public void onKeepAlivePingSent(long nowNs, long ptoNs) {
    if (keepAliveTimeoutNs > 0 && pingDeadlineNs == Long.MAX_VALUE) {
      pingDeadlineNs = Saturating.add(nowNs, Math.max(keepAliveTimeoutNs, ptoNs));
    }
  }

  /**
   * An ack-eliciting packet was sent. RFC 9000 §10.1: the first one after a receipt also restarts
   * the idle timer; any send counts as activity for the keep-alive.
   */
  public void onAckElicitingSent(long nowNs) {
    if (!ackElicitingSentSinceReceive) {
      ackElicitingSentSinceReceive = true;
      lastReceiveNs = Math.max(lastReceiveNs, nowNs);
    }
    lastActivityNs = nowNs;
  }

  /** How many streams are open; keep-alive runs while there are any. */
  public void setOpenStreams(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative, was " + count);
    }
    if (count > openStreams) {
      waitingProbes = 0; // a new call: its wait is probed from one probe timeout again
    }
    openStreams = count;
  }

  /**
   * Whether this end sends a PING when its calls wait and nothing has arrived for a probe
   * timeout, backed off (see the class comment): on for clients.
   */
  public void setProbeWhileWaiting(boolean on) {
    probeWhileWaiting = on;
  }

  /** When the next waiting PING is due, or Long.MAX_VALUE when none is. */
  private long waitingProbeNs(long ptoNs) {
    if (!probeWhileWaiting || keepAliveIntervalNs == 0 || openStreams == 0) {
      return Long.MAX_VALUE;
    }
    // Backed off up to the keep-alive interval, never off while calls are open: a call that
    // outlives the backoff still shows the server the client's address at least that often.
    long waitNs = Math.min(Saturating.mul(Math.max(ptoNs, 1), 1L << Math.min(waitingProbes, 40)),
        keepAliveNs());
    return Saturating.add(waitingSinceNs, waitNs);
  }

  /** Whether the application wants the connection kept up with no streams open. */
  public void setKeepConnected(boolean keep) {
    keepConnected = keep;
  }

  private long keepAliveNs() {
    return idleTimeoutNs > 0 ? Math.min(keepAliveIntervalNs, idleTimeoutNs / 2) : keepAliveIntervalNs;
  }

  private boolean keepAliveActive() {
    return keepAliveIntervalNs > 0 && (openStreams > 0 || keepConnected);
  }

  /** The idle timeout in force: at least three probe timeouts (RFC 9000 §10.1). */
  public long effectiveIdleTimeoutNs(long ptoNs) {
    return idleTimeoutNs == 0 ? Long.MAX_VALUE / 4
        : Math.max(idleTimeoutNs, Saturating.mul(3, ptoNs));
  }

  /** The next time {@link #onTimeout} has something to do. */
  public long nextTimeoutNs(long ptoNs) {
    long close = Math.min(pingDeadlineNs,
        Saturating.add(lastReceiveNs, effectiveIdleTimeoutNs(ptoNs)));
    if (!keepAliveActive()) {
      return close;
    }
    return Math.min(Math.min(close, Saturating.add(lastActivityNs, keepAliveNs())),
        waitingProbeNs(ptoNs));
  }

  /** The timer fired (or the connection checks): what is due now. */
  public Action onTimeout(long nowNs, long ptoNs) {
    if (nowNs - lastReceiveNs >= effectiveIdleTimeoutNs(ptoNs)) {
      return Action.CLOSE;
    }
    if (pingDeadlineNs != Long.MAX_VALUE && nowNs - pingDeadlineNs >= 0) {
      return Action.KEEP_ALIVE_TIMEOUT;
    }
    if (keepAliveActive() && nowNs - lastActivityNs >= keepAliveNs()) {
      // The next keep-alive is one interval after this request, whether or not the ping can go
      // out now (a server at the anti-amplification limit cannot send it): a timer left at the
      // missed deadline would stay in the past and spin the driver.
      lastActivityNs = nowNs;
      if (nowNs - waitingProbeNs(ptoNs) >= 0) {
        // The waiting PING due now goes as this one: counted, and timed from it. Left due, it
        // would ask for a second PING at the same instant.
        waitingProbes++;
        waitingSinceNs = nowNs;
      }
      return Action.SEND_PING;
    }
    if (nowNs - waitingProbeNs(ptoNs) >= 0) {
      waitingProbes++;
      waitingSinceNs = nowNs;
      return Action.SEND_WAITING_PING;
    }
    return Action.NONE;
  }
}
