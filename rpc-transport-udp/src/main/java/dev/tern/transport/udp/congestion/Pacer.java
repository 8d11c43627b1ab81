package dev.tern.transport.udp.congestion;

/**
 * Spreads data packets over time at the congestion controller's rate (RFC 9002 §7.7). A token
 * bucket whose depth is {@code max(2 datagrams, 1 ms at the rate)} for a sender that waits on
 * the pacer: real timers fire with about 1 ms precision, so a sender woken late may catch up by
 * one such quantum, never by more. Credit earned while the sender had nothing to send, or was
 * held by its congestion window rather than by the pacer, stops at the larger of the initial
 * window (RFC 9002 §7.7: "senders SHOULD limit bursts to the initial congestion window", §7.2)
 * and what the driver's timers would release anyway ({@link #setTimerPrecisionNs}): with exact
 * timers (the simulator) there is no late timer to catch up on, and above about 118 Mbit/s (an
 * initial window per millisecond) a full quantum would otherwise leave as one burst when data
 * or an ACK arrives. With timers of 1 ms, a sender held to the initial window waits on the
 * pacer and wakes up to a millisecond later with that millisecond's credit: the cap would only
 * defer the same burst by a timer tick, and in the meantime the sender waits for a wake-up per
 * initial window. A flight that starts after the pacer sat idle (the first one, or one after a
 * pause of more than {@link #IDLE_NS}) holds at most one datagram of credit, not a burst: the
 * initial window then occupies a full RTT/2 at the slow-start rate.
 *
 * <p>Only data (ack-eliciting) packets are paced: a connection sends ACK-only packets at once and
 * does not report them here (or passes {@code paced = false}). Tokens are counted in bytes x 10^9
 * so rates are exact in integer arithmetic; nothing allocates.
 */
public final class Pacer {
  /** Pacing switched off ({@link #setUnpaced}); false normally. */
  private boolean unpaced;
  private static final long NS_PER_S = 1_000_000_000L;
  /** The timer precision the burst allowance covers. */
  public static final long QUANTUM_NS = 1_000_000L;
  /**
   * A pause in paced sending longer than this (or than the time to fill the bucket plus one
   * quantum, at low rates) starts the next flight with one datagram.
   */
  public static final long IDLE_NS = 2 * QUANTUM_NS;
  /**
   * The highest rate taken, 100 GB/s: a near-zero RTT (loopback) makes cwnd/srtt enormous, and the
   * token arithmetic (bytes x 10^9) must not overflow.
   */
  public static final long MAX_RATE_BYTES_PER_SECOND = 100_000_000_000L;

  private int maxDatagramSize;
  private long rateBytesPerSecond;
  /** Tokens in bytes x 10^9 (byte-nanoseconds at 1 byte/s); negative after a forced send. */
  private long tokens;
  private long lastRefillNs;
  private long lastSendNs;
  private long capTokens;
  private boolean started;
  /**
   * The sender was told to wait for the pacer ({@link #nextSendTimeNs} returned a later time)
   * and has not sent since: only then may the bucket fill beyond the initial window.
   */
  private boolean waiting;
  /** How late the driver's timers may fire, ns ({@link #setTimerPrecisionNs}); 0: on time. */
  private long timerPrecisionNs;

  /** A pacer for datagrams of up to {@code maxDatagramSize} bytes at {@code rateBytesPerSecond}. */
  public Pacer(int maxDatagramSize, long rateBytesPerSecond) {
    this.maxDatagramSize = WindowPacing.checkDatagramSize(maxDatagramSize);
    setRate(rateBytesPerSecond);
  }

  /** Sets the rate; call after each ACK (or use {@link #update}). */
  public void setRate(long rateBytesPerSecond) {
    if (rateBytesPerSecond <= 0) {
      throw new IllegalArgumentException(
          "rateBytesPerSecond must be positive, was " + rateBytesPerSecond);
    }
    this.rateBytesPerSecond = Math.min(rateBytesPerSecond, MAX_RATE_BYTES_PER_SECOND);
  }

  /** Takes the rate from {@code controller} for the current RTT estimate. */
  public void update(CongestionController controller, CongestionController.RttView rtt) {
    setRate(controller.pacingRateBytesPerSecond(rtt));
  }

  /**
   * How late, at most, the driver's timers fire, ns, in [0, {@link #QUANTUM_NS}]: 0 (the
   * default) for a driver that wakes the sender at its deadline (the simulator), 1 ms for one
   * that sleeps in {@code Selector.select(long)}. Credit earned without waiting on the pacer may
   * reach what the rate earns in that time, when it is more than the initial window.
   */
  public void setTimerPrecisionNs(long ns) {
    if (ns < 0 || ns > QUANTUM_NS) {
      throw new IllegalArgumentException("timer precision must be in 0.." + QUANTUM_NS
          + " ns, was " + ns);
    }
    this.timerPrecisionNs = ns;
  }

  /** The datagram size changed (DPLPMTUD). */
  public void setMaxDatagramSize(int bytes) {
    this.maxDatagramSize = WindowPacing.checkDatagramSize(bytes);
  }

  /** The current rate, bytes per second. */
  public long rateBytesPerSecond() {
    return rateBytesPerSecond;
  }

  /** The most that may leave back to back: {@code max(2 datagrams, 1 ms at the rate)}, bytes. */
  public long burstBytes() {
    long perQuantum = rateBytesPerSecond / (NS_PER_S / QUANTUM_NS);
    return Math.max(2L * maxDatagramSize, perQuantum);
  }

  /**
   * Switches pacing off, a deliberate defect for the simulator campaign's check of itself
   * ({@code connection.Mutant#NO_PACING}): every packet may leave at once.
   */
  public void setUnpaced(boolean unpaced) {
    this.unpaced = unpaced;
  }

  /**
   * The earliest time a paced packet of {@code bytes} may leave: {@code nowNs} if it may leave
   * now, otherwise a later time (the connection arms a timer for it).
   */
  public long nextSendTimeNs(long nowNs, int bytes) {
    long at = earliestSendNs(nowNs, bytes);
    if (at > nowNs) {
      waiting = true;
    }
    return at;
  }

  private long earliestSendNs(long nowNs, int bytes) {
    if (unpaced) {
      return nowNs;
    }
    refill(nowNs);
    // A packet larger than the bucket (a PMTU probe after a pause) may go once it is full.
    long need = Math.min((long) bytes * NS_PER_S, capTokens) - tokens;
    if (need <= 0) {
      return nowNs;
    }
    // Round up so the packet is never released a nanosecond early.
    return nowNs + (need + rateBytesPerSecond - 1) / rateBytesPerSecond;
  }

  /**
   * Whether a paced packet of {@code bytes} may leave at {@code nowNs}. Unlike {@link
   * #nextSendTimeNs}, asking does not count as waiting: a sender that asks with nothing to send
   * earns no more than the initial window.
   */
  public boolean canSend(long nowNs, int bytes) {
    return earliestSendNs(nowNs, bytes) <= nowNs;
  }

  /** A data packet of {@code bytes} was sent; it spends tokens. */
  public void onPacketSent(long nowNs, int bytes) {
    onPacketSent(nowNs, bytes, true);
  }

  /**
   * A packet of {@code bytes} was sent; {@code paced} is false for ACK-only packets, which the
   * connection sends without waiting and which spend no tokens.
   */
  public void onPacketSent(long nowNs, int bytes, boolean paced) {
    if (!paced) {
      return;
    }
    refill(nowNs);
    tokens -= (long) bytes * NS_PER_S;
    lastSendNs = nowNs;
    waiting = false;
  }

  /**
   * How long a pause must be to count as idle: longer than filling the bucket plus a quantum, so a
   * sender whose timer merely fired late (its interval above a millisecond) still catches up.
   */
  private long idleThresholdNs() {
    long fillNs = burstBytes() * NS_PER_S / rateBytesPerSecond;
    return Math.max(IDLE_NS, fillNs + QUANTUM_NS);
  }

  private void refill(long nowNs) {
    long cap = burstBytes() * NS_PER_S;
    if (!started) {
      started = true;
      lastRefillNs = nowNs;
      lastSendNs = nowNs;
      tokens = (long) maxDatagramSize * NS_PER_S;
      capTokens = tokens;
      return;
    }
    long elapsed = nowNs - lastRefillNs;
    if (elapsed <= 0) {
      return;
    }
    lastRefillNs = nowNs;
    if (!waiting) {
      // RFC 9002 §7.7: no burst above the initial window but a late timer's catch-up, which a
      // driver with coarse timers makes of any wait (at most 1 ms x 100 GB/s: no overflow).
      long allowed = Math.max(WindowPacing.initialWindowBytes(maxDatagramSize) * NS_PER_S,
          timerPrecisionNs * rateBytesPerSecond);
      cap = Math.min(cap, allowed);
    }
    // A new flight after a pause holds at most one datagram of credit: one now, the rest at the
    // rate.
    if (nowNs - lastSendNs > idleThresholdNs()) {
      cap = Math.min(cap, (long) maxDatagramSize * NS_PER_S);
    }
    capTokens = cap;
    // Avoid overflow: once the elapsed time alone would fill the bucket, it is full.
    long room = cap - tokens;
    if (room <= 0) {
      tokens = Math.min(tokens, cap);
      return;
    }
    if (elapsed >= room / rateBytesPerSecond + 1) {
      tokens = cap;
    } else {
      tokens += elapsed * rateBytesPerSecond;
      if (tokens > cap) {
        tokens = cap;
      }
    }
  }
}
