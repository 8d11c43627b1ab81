package dev.tern.transport.udp.recovery;

import dev.tern.transport.udp.congestion.CongestionController;
import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.util.Saturating;

/**
 * Loss detection and the probe timer of RFC 9002 §6 and Appendix A (RFC 8985's time-based
 * detection): ACK-driven detection by packet threshold 3 and time threshold 9/8 RTT, the probe
 * timeout with exponential backoff, and persistent congestion (§7.6). It tells the congestion
 * controller what happened and the {@link SentFrameSink} which frames to re-queue; it never
 * sends anything itself. All times are virtual ({@code nowNs}); nothing allocates.
 */
public final class LossDetector {
  /** RFC 9002 §6.1.1: the packet reordering threshold, before any reordering is seen. */
  public static final int PACKET_THRESHOLD = 3;
  /** The packet threshold never grows beyond this (RFC 9002 §6.1: it may be raised). */
  public static final int MAX_PACKET_THRESHOLD = 16;
  /** RFC 9002 §6.1.2: the time threshold, 9/8 RTT, in eighths, before any reordering is seen. */
  public static final int TIME_THRESHOLD_EIGHTHS = 9;
  /** The time threshold never grows beyond 2 RTT (RFC 8985 §6.2: the reordering window). */
  public static final int MAX_TIME_THRESHOLD_EIGHTHS = 16;
  /** Lost packets remembered per loss event; an event with more is never undone. */
  static final int LOSS_EVENT_CAPACITY = 64;
  /** RFC 9002 §7.6: persistent congestion spans 3 PTOs. */
  public static final int PERSISTENT_CONGESTION_THRESHOLD = 3;
  /**
   * The longest ACK delay ever believed, 2^14 ms: RFC 9000 §18.2 makes max_ack_delay values of
   * 2^14 ms or more invalid, so no conforming peer delays an ACK longer. Before the handshake is
   * confirmed (when RFC 9002 §5.3 does not yet cap the delay at max_ack_delay) this bounds what
   * a peer's ACK Delay field can do to the RTT estimate.
   */
  public static final long ACK_DELAY_CEILING_NS = (1L << 14) * 1_000_000L;
  /** Probes sent when the probe timer fires (RFC 9002 §6.2.4: tail-loss probes). */
  public static final int PROBES_PER_PTO = 2;
  /** Skipped packet numbers remembered, to recognise an ACK that claims one (RFC 9000 §21.4). */
  static final int SKIPPED_REMEMBERED = 16;
  /** The first skipped packet number is drawn from [FIRST_SKIP_MIN, FIRST_SKIP_MIN + SPAN). */
  static final int FIRST_SKIP_MIN = 8;
  /** Later skips come every [SKIP_INTERVAL_MIN, SKIP_INTERVAL_MIN + SPAN) packet numbers. */
  static final int SKIP_INTERVAL_MIN = 64;
  /** The span each skip position is drawn from. */
  static final int SKIP_SPAN = 256;

  private static final SentFrameSink NO_SINK = new SentFrameSink() {
    @Override
    public void onFrameAcked(byte type, long a, long b, int length) {}

    @Override
    public void onFrameLost(byte type, long a, long b, int length) {}
  };

  private final SentPacketLog log;
  private final RttEstimator rtt;
  private final CongestionController cc;
  private final SentFrameSink sink;

  private long largestAckedPn = -1;
  private final Flight flight;
  private int ackElicitingInFlight;
  private long lastAckElicitingSentNs;
  private boolean lastAckElicitingUrgent;
  private long lossTimeNs; // 0 = none
  private long timerEventNs; // the last ACK or timeout that (re)armed the timer
  private long maxAckDelayNs;
  private boolean handshakeConfirmed;
  private boolean armWithoutInFlight;

  private int packetThreshold = PACKET_THRESHOLD;
  /**
   * The last {@link #REVEALS} times the largest acknowledged packet number grew (a gap below it
   * is revealed then), to judge whether losses were declared as promptly as RFC 9002 §6.1 asks.
   */
  private static final int REVEALS = 64;
  private final long[] revealPn = new long[REVEALS];
  private final long[] revealNs = new long[REVEALS];
  private int reveals;
  private long lossesDeclaredLate;
  /** Deliberate defects ({@link #mutate}); 1 and false normally. */
  private int ptoMultiplier = 1;
  private boolean noFastRetransmit;
  private int timeThresholdEighths = TIME_THRESHOLD_EIGHTHS;
  /** When the first RTT sample was taken, or -1 (RFC 9002 §7.6.2). */
  private long firstRttSampleNs = -1;

  // The current loss event: the packets declared lost since it began (RFC 9002 §7.3.2's
  // recovery period), each with the largest acknowledged packet when it was declared.
  private long lossEventStartNs = Long.MIN_VALUE;
  private final long[] eventPn = new long[LOSS_EVENT_CAPACITY];
  private final long[] eventLargestAcked = new long[LOSS_EVENT_CAPACITY];
  private final boolean[] eventLateAcked = new boolean[LOSS_EVENT_CAPACITY];
  private int eventCount;
  private int eventLateAckedCount;
  private boolean eventUndoable;

  /** Packet numbers skipped on purpose (never sent), -1 when unused; a ring. */
  private final long[] skippedPn = new long[SKIPPED_REMEMBERED];
  private int skippedNext;
  /** The next packet number to skip, or Long.MAX_VALUE when this space skips none. */
  private long nextSkipPn = Long.MAX_VALUE;
  /** A xorshift64 state for the skip positions, seeded from the connection's secure source. */
  private long skipState;
  private long skippedCount;

  private long spuriousLosses;
  private long spuriousEvents;
  private long packetsLost;
  private long ptoFired;
  private long persistentCongestionEvents;
  /** The packet-number space, as the event log names it. */
  private final int space;

  /** A detector over {@code log}, reporting to {@code cc} and {@code sink}: a single space. */
  public LossDetector(SentPacketLog log, RttEstimator rtt, CongestionController cc,
      SentFrameSink sink) {
    this(log, rtt, cc, sink, new Flight());
  }

  /**
   * A detector for one packet-number space over {@code log}, sharing {@code flight} (bytes in
   * flight, probe backoff, the controller's sequence) with the connection's other spaces.
   */
  public LossDetector(SentPacketLog log, RttEstimator rtt, CongestionController cc,
      SentFrameSink sink, Flight flight) {
    this(log, rtt, cc, sink, flight, 2);
  }

  /**
   * As {@link #LossDetector(SentPacketLog, RttEstimator, CongestionController, SentFrameSink,
   * Flight)}, for packet-number space {@code space} (0 Initial, 1 Handshake, 2 application data),
   * as the event log names it.
   */
  public LossDetector(SentPacketLog log, RttEstimator rtt, CongestionController cc,
      SentFrameSink sink, Flight flight, int space) {
    this.space = space;
    java.util.Arrays.fill(skippedPn, -1);
    this.flight = flight;
    this.log = log;
    this.rtt = rtt;
    this.cc = cc;
    this.sink = sink;
  }

  /**
   * Switches on a deliberate defect, for the simulator campaign's check of itself
   * ({@code connection.Mutant}): probe timeouts four times too long, or no loss detection from
   * acknowledgements before a probe timeout has passed.
   */
  public void mutate(boolean ptoFourTimes, boolean noFastRetransmit) {
    this.ptoMultiplier = ptoFourTimes ? 4 : 1;
    this.noFastRetransmit = noFastRetransmit;
  }

  /**
   * Makes this space skip a packet number now and then (RFC 9000 §21.4), so that a peer that
   * acknowledges packets it never received (an optimistic ACK, to inflate the sender's window)
   * is caught: an ACK that covers a skipped number fails {@link #onAck} like one of a packet
   * never sent, and the connection closes with PROTOCOL_VIOLATION. The first skip falls within
   * the first few hundred packets, later ones every 64-320 packets, at positions drawn from
   * {@code seed}, which must come from a source the peer cannot predict (a peer that knew them
   * could leave them out of its ACKs). A skip costs the peer one out-of-order arrival, which it
   * acknowledges at once (RFC 9000 §13.2.1); nothing else changes on the wire.
   */
  public void skipPacketNumbers(long seed) {
    skipState = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
    nextSkipPn = log.nextPacketNumber() + FIRST_SKIP_MIN + draw(SKIP_SPAN);
  }

  private int draw(int bound) {
    long x = skipState;
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    skipState = x;
    return (int) Long.remainderUnsigned(x, bound);
  }

  /** Packet numbers skipped on purpose so far ({@link #skipPacketNumbers}). */
  public long skippedPacketNumbers() {
    return skippedCount;
  }

  /** Records packet number {@link #nextSkipPn} as never sent, if it is the next one. */
  private void skipIfDue(long nowNs) {
    if (log.nextPacketNumber() != nextSkipPn || !log.hasRoom()) {
      return;
    }
    long pn = log.beginPacket();
    // Neither in flight nor ack-eliciting, closed at once as unacknowledged: the congestion
    // controller and the probe timer never see it; only onAck looks for it.
    log.endPacket(nowNs, 0, false, false, false, -1);
    log.close(pn, false, NO_SINK);
    skippedPn[skippedNext] = pn;
    skippedNext = (skippedNext + 1) % SKIPPED_REMEMBERED;
    skippedCount++;
    nextSkipPn = pn + 1 + SKIP_INTERVAL_MIN + draw(SKIP_SPAN);
  }

  /** Whether {@code ack} covers a packet number this space skipped. */
  private boolean acksSkipped(AckFrame ack) {
    for (long pn : skippedPn) {
      if (pn < 0) {
        continue;
      }
      for (int r = 0; r < ack.rangeCount; r++) {
        if (pn >= ack.smallest[r] && pn <= ack.largest[r]) {
          return true;
        }
      }
    }
    return false;
  }

  /** The peer's max_ack_delay (transport parameter) and whether the handshake is confirmed. */
  public void setPeerMaxAckDelay(long maxAckDelayNs, boolean handshakeConfirmed) {
    this.maxAckDelayNs = Math.max(0, Math.min(maxAckDelayNs, ACK_DELAY_CEILING_NS));
    this.handshakeConfirmed = handshakeConfirmed;
  }

  /**
   * RFC 9002 §6.2.2.1: a client keeps the probe timer armed before the handshake is confirmed even
   * with nothing in flight, so that a lost server flight cannot deadlock the handshake.
   */
  public void setArmWithoutInFlight(boolean arm) {
    armWithoutInFlight = arm;
  }

  /**
   * Records that the packet begun in the log was sent (it ends it in the log) and tells the
   * congestion controller.
   */
  public void onPacketSent(long nowNs, int bytes, boolean ackEliciting, boolean inFlight) {
    onPacketSent(nowNs, bytes, ackEliciting, inFlight, false);
  }

  /**
   * As {@link #onPacketSent(long, int, boolean, boolean)}; {@code urgent} says that the packet
   * carried data of an urgent stream (more urgent than RFC 9218's default), which shortens the
   * tail-loss probe while it is the last ack-eliciting packet sent (see {@link #timerNs()}).
   */
  public void onPacketSent(long nowNs, int bytes, boolean ackEliciting, boolean inFlight,
      boolean urgent) {
    long pn = log.nextPacketNumber();
    long seq = flight.takeSequence();
    log.endPacket(nowNs, bytes, ackEliciting, inFlight, urgent, seq);
    flight.eventLog.packetSent(nowNs, space, pn, bytes, ackEliciting);
    if (!ackEliciting && !inFlight) {
      // ACK-only packets are never acknowledged by themselves (RFC 9000 §13.2.1): tracking them
      // would only fill the log. Their ACK frames need no retransmission. They are closed as
      // not acknowledged: they do not end a persistent-congestion period (RFC 9002 §7.6.2).
      log.close(pn, false, NO_SINK);
      skipIfDue(nowNs);
      return;
    }
    skipIfDue(nowNs);
    if (inFlight) {
      flight.bytesInFlight += bytes;
      cc.onPacketSent(nowNs, seq, bytes, flight.bytesInFlight);
    }
    if (ackEliciting) {
      ackElicitingInFlight++;
      lastAckElicitingSentNs = nowNs;
      lastAckElicitingUrgent = urgent;
    }
  }

  /**
   * Processes an ACK frame (RFC 9002 §A.7).
   *
   * @return false if it acknowledges a packet never sent, one skipped on purpose included (a
   *     PROTOCOL_VIOLATION, RFC 9000 §13.1, §21.4); nothing of the ACK is processed then
   */
  public boolean onAck(AckFrame ack, long nowNs) {
    long largest = ack.largestAcknowledged();
    if (largest >= log.nextPacketNumber()) {
      return false;
    }
    if (skippedCount > 0 && acksSkipped(ack)) {
      return false;
    }
    if (largest > largestAckedPn) {
      int k = reveals++ % REVEALS;
      revealPn[k] = largest;
      revealNs[k] = nowNs;
    }
    largestAckedPn = Math.max(largestAckedPn, largest);
    // RFC 9002 §5.1: sample only when the largest acknowledged is newly acknowledged and
    // ack-eliciting.
    if (log.isOpen(largest) && log.isAckEliciting(largest)) {
      // RFC 9002 §5.3: capped by max_ack_delay once the handshake is confirmed; before that by
      // the largest valid max_ack_delay (RFC 9000 §18.2), so a forged field cannot skew the RTT.
      long ackDelay = Math.min(ack.ackDelayNs(),
          handshakeConfirmed ? maxAckDelayNs : ACK_DELAY_CEILING_NS);
      if (firstRttSampleNs < 0) {
        firstRttSampleNs = nowNs;
      }
      rtt.onSample(nowNs - log.sentTimeNs(largest), ackDelay);
    }
    if (eventUndoable) {
      checkLateAcks(ack, nowNs);
    }
    boolean newlyAcked = false;
    long first = log.firstPacketNumber();
    for (int r = 0; r < ack.rangeCount; r++) {
      long hi = Math.min(ack.largest[r], log.nextPacketNumber() - 1);
      for (long pn = Math.max(ack.smallest[r], first); pn <= hi; pn++) {
        if (log.isOpen(pn)) {
          newlyAcked = true;
          long sent = log.sentTimeNs(pn);
          int size = log.sizeBytes(pn);
          boolean inFlight = log.isInFlight(pn);
          long seq = log.sequence(pn);
          removeFromFlight(pn, inFlight, size);
          log.close(pn, true, sink);
          if (inFlight) {
            cc.onPacketAcked(nowNs, seq, size, sent, rtt, flight.bytesInFlight);
          }
        }
      }
    }
    if (!newlyAcked) {
      return true;
    }
    detectLost(nowNs);
    timerEventNs = nowNs;
    flight.ptoCount = 0; // RFC 9002 §6.2.1: reset on an acknowledgement
    cc.onAckProcessed(nowNs, flight.bytesInFlight);
    flight.eventLog.metricsUpdated(nowNs, rtt.smoothedRttNs(), rtt.minRttNs(), rtt.latestRttNs(),
        cc.congestionWindowBytes(), flight.bytesInFlight);
    return true;
  }

  private void removeFromFlight(long pn, boolean inFlight, int size) {
    if (inFlight) {
      flight.bytesInFlight -= size;
    }
    if (log.isAckEliciting(pn)) {
      ackElicitingInFlight--;
    }
  }

  /**
   * RFC 9002 §6.1 / §A.10: declares lost what the thresholds say, arms the loss timer, and
   * judges persistent congestion (§7.6.2): two ack-eliciting packets declared lost, both sent
   * after the first RTT sample, further apart than the persistent-congestion duration, with no
   * packet sent between them acknowledged. Packets between them that are not acknowledged (lost
   * earlier, still in flight, or ACK-only packets that are never acknowledged) do not end it.
   */
  private void detectLost(long nowNs) {
    long lossDelay = noFastRetransmit ? rtt.ptoNs(maxAckDelayNs) : lossDelayNs();
    long lostSendTime = Saturating.add(nowNs, -lossDelay);
    long threshold = noFastRetransmit ? Long.MAX_VALUE / 2 : packetThreshold;
    lossTimeNs = 0;
    long periodStartNs = -1;
    boolean persistent = false;
    long pcDuration = Saturating.mul(PERSISTENT_CONGESTION_THRESHOLD, rtt.ptoNs(maxAckDelayNs));
    int lostNow = 0;
    for (long pn = log.firstPacketNumber(); pn < largestAckedPn; pn++) {
      if (!log.isOpen(pn)) {
        if (log.isAcked(pn)) {
          periodStartNs = -1;
        }
        continue;
      }
      long sent = log.sentTimeNs(pn);
      // RFC 9002 §6.1.1 packet threshold and §6.1.2 time threshold.
      if (sent <= lostSendTime || largestAckedPn - pn >= threshold) {
        int size = log.sizeBytes(pn);
        boolean inFlight = log.isInFlight(pn);
        boolean eliciting = log.isAckEliciting(pn);
        long seq = log.sequence(pn);
        removeFromFlight(pn, inFlight, size);
        log.close(pn, false, sink);
        flight.eventLog.packetLost(nowNs, space, pn, size);
        if (eliciting) {
          packetsLost++;
          lostNow++;
          noteLateness(pn, sent, nowNs);
        }
        if (inFlight) {
          recordLoss(pn, sent, nowNs);
          cc.onPacketLost(nowNs, seq, size, sent, flight.bytesInFlight);
        }
        if (eliciting && firstRttSampleNs >= 0 && sent >= firstRttSampleNs) {
          if (periodStartNs < 0) {
            periodStartNs = sent;
          } else if (sent - periodStartNs > pcDuration) {
            persistent = true;
          }
        }
      } else {
        long t = Saturating.add(sent, lossDelay);
        lossTimeNs = lossTimeNs == 0 ? t : Math.min(lossTimeNs, t);
      }
    }
    if (lostNow > 0) {
      flight.lossListener.packetsLost(lostNow); // their frames are queued again (RFC 9002 §6.1)
    }
    if (persistent) {
      persistentCongestionEvents++;
      eventUndoable = false; // a collapsed window is never restored
      cc.onPersistentCongestion(nowNs);
    }
  }

  /**
   * RFC 9002 §6.1: a packet is lost once a later one is acknowledged and either three later ones
   * are (§6.1.1) or the time threshold has passed since it was sent (§6.1.2). So it is due by the
   * later of its reveal (the ACK that first acknowledged a later packet) and its send time plus
   * the time threshold; a declaration more than the timer granularity after that is late
   * (counted for the simulator's check that loss detection works, {@link #lossesDeclaredLate}).
   */
  private void noteLateness(long pn, long sentNs, long nowNs) {
    // Newest advance first: the earliest one past pn revealed it.
    int remembered = Math.min(reveals, REVEALS);
    int j = 0;
    while (j < remembered && revealPn[(reveals - 1 - j) % REVEALS] > pn) {
      j++;
    }
    if (j == 0 || (j == remembered && reveals > REVEALS)) {
      return; // not revealed, or revealed before the oldest advance remembered: not judged
    }
    long reveal = revealNs[(reveals - j) % REVEALS];
    long due = Math.max(reveal, Saturating.add(sentNs, lossDelayNs()));
    if (nowNs > Saturating.add(due, RttEstimator.GRANULARITY_NS)) {
      lossesDeclaredLate++;
    }
  }

  /** Ack-eliciting packets declared lost later than RFC 9002 §6.1 makes them due. */
  public long lossesDeclaredLate() {
    return lossesDeclaredLate;
  }

  /**
   * The time threshold (RFC 9002 §6.1.2): {@link #timeThresholdEighths()} eighths of
   * max(smoothed RTT, latest RTT), at least the timer granularity.
   */
  private long lossDelayNs() {
    long base = Math.max(rtt.smoothedRttNs(), rtt.latestRttNs());
    long delay = Saturating.add(base, Saturating.mul(base, timeThresholdEighths - 8) / 8);
    return Math.max(delay, RttEstimator.GRANULARITY_NS);
  }

  /**
   * Adds a packet declared lost to the current loss event, or starts a new one: as the congestion
   * controller counts it (RFC 9002 §7.3.2), a loss of a packet sent after the event began starts
   * the next.
   */
  private void recordLoss(long pn, long sentNs, long nowNs) {
    if (sentNs > lossEventStartNs) {
      lossEventStartNs = nowNs;
      eventCount = 0;
      eventLateAckedCount = 0;
      eventUndoable = true;
    }
    if (eventCount == LOSS_EVENT_CAPACITY) {
      eventUndoable = false;
      return;
    }
    eventPn[eventCount] = pn;
    eventLargestAcked[eventCount] = largestAckedPn;
    eventLateAcked[eventCount] = false;
    eventCount++;
  }

  /**
   * A packet declared lost that an ACK later covers was not lost but reordered (or its ACK was):
   * the reordering thresholds grow to the reordering seen (RFC 9002 §6.1: an implementation may
   * raise them after spurious loss; RFC 8985 §6.2: the reordering window grows by an eighth of
   * the RTT per spurious loss), and once every packet the event declared lost is acknowledged the
   * congestion controller undoes its response (RFC 9438 §4.9).
   */
  private void checkLateAcks(AckFrame ack, long nowNs) {
    for (int i = 0; i < eventCount; i++) {
      if (eventLateAcked[i] || !covers(ack, eventPn[i])) {
        continue;
      }
      eventLateAcked[i] = true;
      eventLateAckedCount++;
      spuriousLosses++;
      long reordering = eventLargestAcked[i] - eventPn[i] + 1;
      packetThreshold = (int) Math.min(MAX_PACKET_THRESHOLD,
          Math.max(packetThreshold, reordering));
      timeThresholdEighths = Math.min(MAX_TIME_THRESHOLD_EIGHTHS, timeThresholdEighths + 1);
    }
    if (eventLateAckedCount == eventCount) {
      eventUndoable = false;
      spuriousEvents++;
      cc.onSpuriousCongestion(nowNs, lossEventStartNs);
    }
  }

  private static boolean covers(AckFrame ack, long pn) {
    for (int r = 0; r < ack.rangeCount; r++) {
      if (pn <= ack.largest[r] && pn >= ack.smallest[r]) {
        return true;
      }
    }
    return false;
  }

  /**
   * When this space's earliest in-flight packet will be declared lost by the time threshold
   * (RFC 9002 §A.8 {@code loss_time[space]}), 0 if none: across spaces the earliest loss time
   * goes before any probe timeout.
   */
  public long lossTimeNs() {
    return lossTimeNs;
  }

  /** When the loss-detection timer fires (RFC 9002 §A.8), or {@code Long.MAX_VALUE} if unarmed. */
  public long timerNs() {
    if (lossTimeNs != 0) {
      return lossTimeNs;
    }
    if (ackElicitingInFlight == 0 && !armWithoutInFlight) {
      return Long.MAX_VALUE;
    }
    long pto = Saturating.shiftLeft(rtt.ptoNs(handshakeConfirmed ? maxAckDelayNs : 0),
        Math.min(flight.ptoCount, 20));
    if (flight.ptoCount == 0 && handshakeConfirmed && rtt.hasSample() && ackElicitingInFlight > 0) {
      pto = Math.min(pto, tailLossProbeNs());
    }
    if (ptoMultiplier != 1) {
      pto = Saturating.mul(pto, ptoMultiplier); // a deliberate defect (mutate)
    }
    // RFC 9002 §A.8: with nothing in flight (a client before confirmation) the timer runs from
    // when it was last set, by an ACK or a timeout, not from the last packet sent.
    long base = ackElicitingInFlight == 0
        ? Math.max(lastAckElicitingSentNs, timerEventNs) : lastAckElicitingSentNs;
    return Saturating.add(base, pto);
  }

  /**
   * RFC 8985 §7.2: the first probe after the last ack-eliciting send is a tail-loss probe, due
   * after 2 SRTT, plus the peer's max_ack_delay when a single packet is in flight (its ACK may be
   * delayed; with two or more the peer acknowledges at once, RFC 9000 §13.2.2), and never later
   * than RFC 9002's PTO. Only the first probe is armed so; later ones back off from RFC 9002's
   * PTO (§6.2.1), and persistent congestion is still judged on RFC 9002's PTO (§7.6.1). A
   * spurious probe costs only the probe packets: a PTO declares nothing lost and leaves the
   * window alone (RFC 9002 §7.5).
   *
   * <p>When the last ack-eliciting packet carried urgent stream data (the end of an urgent
   * request or response), the probe is due after 1.5 SRTT instead, the tail-loss probe timeout
   * of the QUIC recovery drafts that preceded RFC 9002. 2 SRTT is RFC 8985's margin against
   * spurious probes; for an urgent tail a spurious probe costs the repetition of its last
   * packets, while a late one costs the call half an SRTT more when the tail was lost (a lost
   * request otherwise waits 2 SRTT before anything is resent).
   */
  private long tailLossProbeNs() {
    long srtt = rtt.smoothedRttNs();
    long tlp = Math.max(lastAckElicitingUrgent ? Saturating.add(srtt, srtt / 2)
        : Saturating.mul(2, srtt), RttEstimator.GRANULARITY_NS);
    return ackElicitingInFlight == 1 ? Saturating.add(tlp, maxAckDelayNs) : tlp;
  }

  /**
   * Runs the loss-detection timer (RFC 9002 §A.9).
   *
   * @return how many probe packets the sender must now send (0 when the timer only declared
   *     losses)
   */
  public int onTimeout(long nowNs) {
    if (lossTimeNs != 0 && nowNs >= lossTimeNs) {
      detectLost(nowNs);
      return 0;
    }
    if (nowNs < timerNs()) {
      return 0;
    }
    flight.ptoCount++;
    ptoFired++;
    timerEventNs = nowNs;
    return PROBES_PER_PTO;
  }

  /**
   * Re-queues the frames of the oldest {@code count} ack-eliciting packets still in flight that
   * carry something to repeat, as the content of probes when there is no new data (RFC 9002
   * §6.2.4: "retransmit data from the oldest in-flight packet"). Packets with nothing to repeat
   * (a PMTU probe, a PING) are passed over: repeating them would make the probe a bare PING and
   * leave the lost data waiting a further round trip for the ACK that declares it lost.
   *
   * @return how many packets were repeated
   */
  public int repeatOldest(int count) {
    int repeated = 0;
    for (long pn = log.firstPacketNumber(); pn < log.nextPacketNumber() && repeated < count;
        pn++) {
      if (log.isOpen(pn) && log.isAckEliciting(pn) && log.carriesRetransmittable(pn)) {
        log.repeat(pn, sink);
        repeated++;
      }
    }
    return repeated;
  }

  /**
   * Re-queues the frames of the oldest {@code count} packets in flight that carried urgent stream
   * data, so that a probe repeats them ahead of less urgent new data (RFC 9218 §12: retransmission
   * scheduling follows the streams' priorities). Without it a PTO probe would carry new bulk data
   * (RFC 9002 §6.2.4 prefers new data) while the end of an urgent response lost in the same burst
   * waited for the ACK of that probe, a round trip later. Scans the log: for probe timeouts only.
   *
   * @return how many packets were repeated
   */
  public int repeatOldestUrgent(int count) {
    int repeated = 0;
    for (long pn = log.firstPacketNumber(); pn < log.nextPacketNumber() && repeated < count;
        pn++) {
      if (log.isOpen(pn) && log.isUrgent(pn) && log.carriesRetransmittable(pn)) {
        log.repeat(pn, sink);
        repeated++;
      }
    }
    return repeated;
  }

  /**
   * Forgets every packet in flight without a congestion signal (their frames are reported lost to
   * the sink; the controller only hears they are gone, {@code onPacketDiscarded}): a client restarting after Version Negotiation does this, like
   * QUIC discarding a packet-number space (RFC 9002 §6.4).
   */
  public void discardAll() {
    for (long pn = log.firstPacketNumber(); pn < log.nextPacketNumber(); pn++) {
      if (log.isOpen(pn)) {
        boolean inFlight = log.isInFlight(pn);
        long seq = log.sequence(pn);
        removeFromFlight(pn, inFlight, log.sizeBytes(pn));
        log.close(pn, false, sink);
        if (inFlight) {
          // Not a loss nor an acknowledgement, but the controller's per-packet state must go.
          cc.onPacketDiscarded(seq);
        }
      }
    }
    lossTimeNs = 0;
    flight.ptoCount = 0; // RFC 9002 §A.10 OnPacketNumberSpaceDiscarded
  }

  /** Whether the handshake is confirmed, as last set by {@link #setPeerMaxAckDelay}. */
  public boolean isHandshakeConfirmed() {
    return handshakeConfirmed;
  }

  /** The largest packet number the peer acknowledged, -1 if none. */
  public long largestAckedPn() {
    return largestAckedPn;
  }

  /** Bytes in flight (RFC 9002 §2). */
  public long bytesInFlight() {
    return flight.bytesInFlight;
  }

  /** Ack-eliciting packets in flight. */
  public int ackElicitingInFlight() {
    return ackElicitingInFlight;
  }

  /** Consecutive probe timeouts without an acknowledgement. */
  public int ptoCount() {
    return flight.ptoCount;
  }

  /** Packets declared lost so far. */
  public long packetsLost() {
    return packetsLost;
  }

  /** Probe timeouts so far. */
  public long ptoFired() {
    return ptoFired;
  }

  /** Packets declared lost that an ACK covered later (spurious losses). */
  public long spuriousLosses() {
    return spuriousLosses;
  }

  /** Loss events whose every lost packet was acknowledged later, the response undone. */
  public long spuriousEvents() {
    return spuriousEvents;
  }

  /** The packet reordering threshold in force (RFC 9002 §6.1.1; raised by spurious losses). */
  public int packetThreshold() {
    return packetThreshold;
  }

  /** The time threshold in force, eighths of an RTT (RFC 9002 §6.1.2; raised likewise). */
  public int timeThresholdEighths() {
    return timeThresholdEighths;
  }

  /** Persistent congestion events so far. */
  public long persistentCongestionEvents() {
    return persistentCongestionEvents;
  }
}
