package dev.tern.transport.udp.congestion;

/**
 * A congestion controller: reacts to the events loss recovery gives it and answers how much may be
 * in flight and how fast to pace. One class per algorithm ({@link CongestionControl} names them).
 * It never detects loss itself (that is {@code recovery}'s job) and never reads a clock: every
 * event carries {@code nowNs}.
 *
 * <p>Every method runs on the connection's thread and must not allocate in steady state.
 */
public interface CongestionController {

  /**
   * A packet of {@code bytes} that counts toward bytes in flight (RFC 9002 §2) was sent.
   *
   * @param bytesInFlight bytes in flight including this packet
   */
  void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight);

  /**
   * A packet sent with {@link #onPacketSent} will be neither acknowledged nor declared lost to
   * this controller: its packet-number space was discarded (RFC 9002 §6.4), or it was a path-MTU
   * probe lost to the path's size limit (RFC 8899 §4.1), which says nothing of congestion.
   * Per-packet state kept for it must go; nothing else changes. Packet numbers are the connection's
   * sending sequence, as in {@link #onPacketSent}.
   */
  default void onPacketDiscarded(long packetNumber) {}

  /**
   * A packet was newly acknowledged.
   *
   * @param sentTimeNs when it was sent (RFC 9002 §7.3.1 uses it to ignore acks of packets sent
   *     before the current recovery period)
   * @param rtt the connection's RTT estimator, already updated with this ACK's sample
   * @param bytesInFlight bytes in flight after this packet was removed
   */
  void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs, RttView rtt,
      long bytesInFlight);

  /** Every ACK frame's packets have been processed ({@link #onPacketAcked} was called for each). */
  default void onAckProcessed(long nowNs, long bytesInFlight) {}

  /** A packet was declared lost (RFC 9002 §6.1). */
  void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs, long bytesInFlight);

  /**
   * Every packet declared lost in the loss event that began at {@code eventStartNs} (when its
   * first loss was declared) was acknowledged later: the losses were reordering, and the response
   * to them is undone (RFC 9438 §4.9: restore the window, slow-start threshold and growth state
   * saved when the event began), provided the controller's current recovery period is that
   * event's; a controller that never reacted to it, or has reacted to a later one since, changes
   * nothing. Not called after persistent congestion.
   */
  default void onSpuriousCongestion(long nowNs, long eventStartNs) {}

  /** RFC 9002 §7.6: the losses span more than the persistent-congestion duration. */
  void onPersistentCongestion(long nowNs);

  /**
   * The sender had nothing to send although the window and the pacer allowed more (RFC 9002 §7.8,
   * draft-cheng-iccrg-delivery-rate-estimation §3.3.4). A window-based controller stops growing its
   * window while the flight does not fill it; a model-based one marks its next rate samples as
   * application-limited so they cannot lower its bandwidth estimate. Connections call it when a
   * send opportunity finds no data.
   */
  default void onApplicationLimited(long nowNs, long bytesInFlight) {}

  /**
   * The path's maximum datagram size changed (DPLPMTUD, RFC 8899); later window arithmetic uses
   * {@code bytes} as the segment size (RFC 9002 §7.2 states windows in multiples of it).
   */
  default void onMaxDatagramSizeChanged(int bytes) {}

  /** Whether {@code bytes} more may be sent with {@code bytesInFlight} outstanding. */
  default boolean canSend(long bytesInFlight, int bytes) {
    return bytesInFlight + bytes <= congestionWindowBytes();
  }

  /** The congestion window, in bytes. */
  long congestionWindowBytes();

  /**
   * How much of the window data of background urgency (less urgent than RFC 9218's default) may
   * fill. A controller whose window deliberately exceeds its path model (BBR keeps 1.25 BDP)
   * answers the model's estimate here, so bulk transfers never hold more than the pipe plus its
   * send quanta in flight and the rest of the window, which would only sit in the bottleneck
   * queue, stays free for urgent data. The default is the whole window.
   */
  default long backgroundWindowBytes() {
    return congestionWindowBytes();
  }

  /**
   * The rate the pacer should send at, in bytes per second, given the RTT estimate; a
   * window-based algorithm answers roughly {@code cwnd / srtt} scaled by its pacing gain.
   */
  long pacingRateBytesPerSecond(RttView rtt);

  /** Whether the controller is in slow start (for reports and tests). */
  boolean inSlowStart();

  /** The algorithm's name, for connection info and logs. */
  String name();

  /** The RTT estimator as the controller sees it (RFC 9002 §5). */
  interface RttView {
    /** Smoothed RTT, ns (RFC 9002 §5.3); the initial RTT before the first sample. */
    long smoothedRttNs();

    /** Latest RTT sample, ns. */
    long latestRttNs();

    /** Minimum RTT seen, ns (RFC 9002 §5.2); {@code Long.MAX_VALUE} before the first sample. */
    long minRttNs();

    /** RTT variation, ns (RFC 9002 §5.3). */
    long rttVarNs();
  }
}
