package dev.tern.transport.udp.congestion;

/**
 * BBR in the style of versions 2 and 3 (draft-ietf-ccwg-bbr): a model of the path (maximum
 * delivery rate, minimum RTT) sets the pacing rate and the window; loss bounds the model only when
 * a round's loss rate is clearly above 2%, so sparse random loss (wireless, FIELD-NOTES: 1.5%) does
 * not shrink the sending rate the way it halves a loss-based controller's window.
 *
 * <p>States: STARTUP (pacing gain 2.77, cwnd gain 2), DRAIN, PROBE_BW (DOWN 0.9, CRUISE 1.0,
 * REFILL 1.0, UP 1.25) and PROBE_RTT (every 5 s, 200 ms at half the BDP, at least 4 packets).
 *
 * <p>Beyond the draft: in PROBE_BW DOWN and CRUISE, a round that kept a standing queue (every RTT
 * sample at least 1.5 min RTT) while delivering under 0.7 of the max-filtered bandwidth lowers
 * bw_lo as a lossy round would, so a link whose rate fell (cellular fading) is not kept filled
 * with the old peak's BDP until the max filter forgets it.
 */
public final class Bbr implements CongestionController {
  /** The model's states; PROBE_BW is split into its four phases. */
  public enum Mode {
    /** Doubling the delivery rate each round until it stops growing. */
    STARTUP,
    /** Emptying the queue STARTUP built. */
    DRAIN,
    /** Leaving headroom after a probe. */
    PROBE_BW_DOWN,
    /** Sending at the estimated bandwidth. */
    PROBE_BW_CRUISE,
    /** Refilling the pipe for one round before probing. */
    PROBE_BW_REFILL,
    /** Probing for more bandwidth. */
    PROBE_BW_UP,
    /** Draining the queue to measure the minimum RTT. */
    PROBE_RTT
  }

  // draft-ietf-ccwg-bbr §5.1 / §5.3 gains.
  static final double STARTUP_PACING_GAIN = 2.77;
  static final double STARTUP_CWND_GAIN = 2.0;
  static final double DRAIN_PACING_GAIN = 0.35;
  static final double DOWN_PACING_GAIN = 0.9;
  static final double UP_PACING_GAIN = 1.25;
  /**
   * PROBE_BW's window gain. Draft BBRv3 uses 2; for RPC the queue a window of 2 BDP can build when
   * the bandwidth estimate is stale (a cellular link whose rate fell) delays urgent calls behind
   * bulk packets already in the bottleneck, so Tern keeps 1.25 BDP plus three send quanta
   * (docs/udp-congestion.md has the measured trade-off; ACK-aggregation compensation, draft
   * §5.5.9, was tried and raised queueing on cellular traces, so it is left out).
   */
  static final double PROBE_BW_CWND_GAIN = 1.25;
  static final double UP_CWND_GAIN = 2.25;
  static final double PROBE_RTT_CWND_GAIN = 0.5;
  /** §5.5.10: BBRBeta, the multiplicative cut of an upper or lower bound on excess loss. */
  static final double BETA = 0.7;
  /** §5.5.10: BBRLossThresh. */
  static final double LOSS_THRESH = 0.02;
  /** §5.3.3.6: BBRHeadroom. */
  static final double HEADROOM = 0.15;
  /** §5.6.1: pace 1% under the estimate so queues drain. */
  static final double PACING_MARGIN = 0.01;
  static final long PROBE_RTT_INTERVAL_NS = 5_000_000_000L;
  static final long PROBE_RTT_DURATION_NS = 200_000_000L;
  static final long MIN_RTT_FILTER_NS = 10_000_000_000L;
  private static final int MIN_PIPE_PACKETS = 4;
  private static final int FULL_BW_ROUNDS = 3;
  /** A queue of this many BDPs held through a whole round shows a full pipe (see checkFullPipe). */
  private static final double PERSISTENT_QUEUE_BDP = 0.5;
  /** A round whose every RTT sample is this many min RTTs above the min RTT kept a queue. */
  private static final double STANDING_QUEUE_RTT = 0.5;
  /** A round delivering under this fraction of the max-filtered bandwidth: the rate fell. */
  private static final double RATE_FELL = 0.7;
  /** Below this pacing rate the send quantum floor is one datagram (§5.6.3: 1.2 Mbit/s). */
  private static final long LOW_RATE_BYTES_PER_SECOND = 1_200_000L / 8;
  private static final double FULL_BW_GROWTH = 1.25;
  /**
   * The growth that restarts STARTUP's full-pipe count in a round whose flight was held to the
   * background window (see checkFullPipe).
   */
  private static final double HELD_FULL_BW_GROWTH = 1.05;
  private static final int MAX_UP_ROUNDS = 8;
  private static final int STARTUP_FULL_LOSS_COUNT = 6;

  private final DeliveryRateEstimator rate = new DeliveryRateEstimator(1024);
  private final MaxBandwidthFilter maxBw = new MaxBandwidthFilter();
  private final BbrLossRound loss = new BbrLossRound();
  private long rngState;
  private int mss;
  private Mode mode = Mode.STARTUP;
  private double pacingGain = STARTUP_PACING_GAIN;
  private double cwndGain = STARTUP_CWND_GAIN;
  private long cwndBytes;
  private long priorCwndBytes;
  private long pacingRateBytesPerSecond;
  private long bwLo = Long.MAX_VALUE;
  private long inflightLo = Long.MAX_VALUE;
  private long inflightHi = Long.MAX_VALUE;
  private long srttNs;
  // Rounds (§5.5.1).
  private long nextRoundDelivered;
  private boolean roundStart;
  private long roundMaxBw;
  /** Some delivery-rate sample of this round was application-limited. */
  private boolean roundAppLimited;
  private long roundMinInflight = Long.MAX_VALUE;
  /** The most data in flight at a send this round. */
  private long roundMaxSentInflight;
  private long roundMinRttNs = Long.MAX_VALUE;
  // STARTUP's full-pipe test (§5.3.1.2).
  private boolean filledPipe;
  private long fullBw;
  private int fullBwRounds;
  // Min RTT (§5.5.4).
  private long minRttNs = Long.MAX_VALUE;
  private long minRttStampNs;
  private long probeRttMinNs = Long.MAX_VALUE;
  private long probeRttMinStampNs;
  private boolean probeRttExpired;
  private long probeRttDoneNs = Long.MIN_VALUE;
  private boolean probeRttRoundDone;
  // PROBE_BW cycle (§5.3.3).
  private long cycleStampNs;
  private long probeWaitNs;
  private int roundsSinceProbe;
  private int roundsInUp;
  private long probeUpBytes;

  /**
   * A controller for datagrams of up to {@code maxDatagramSize} bytes; {@code seed} feeds the
   * random spacing of bandwidth probes (§5.3.3.5), so a simulation is reproducible.
   */
  public Bbr(int maxDatagramSize, long seed) {
    this.mss = WindowPacing.checkDatagramSize(maxDatagramSize);
    this.cwndBytes = WindowPacing.initialWindowBytes(maxDatagramSize);
    this.rngState = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
  }

  @Override
  public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {
    rate.onPacketSent(nowNs, packetNumber, bytes, bytesInFlight);
    roundMaxSentInflight = Math.max(roundMaxSentInflight, bytesInFlight);
  }

  @Override
  public void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      RttView rtt, long bytesInFlight) {
    rate.onPacketAcked(nowNs, packetNumber, bytes);
    srttNs = rtt.smoothedRttNs();
    updateMinRtt(nowNs, rtt.latestRttNs());
    if (rtt.latestRttNs() > 0) {
      roundMinRttNs = Math.min(roundMinRttNs, rtt.latestRttNs());
    }
  }

  @Override
  public void onPacketDiscarded(long packetNumber) {
    rate.onPacketDiscarded(packetNumber);
  }

  /** Slots in the delivery-rate ring now (tests: it stays bounded by what is in flight). */
  int rateRingCapacity() {
    return rate.capacity();
  }

  @Override
  public void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      long bytesInFlight) {
    rate.onPacketLost(packetNumber, bytes);
    loss.onLost(packetNumber, bytes);
  }

  @Override
  public void onApplicationLimited(long nowNs, long bytesInFlight) {
    rate.onApplicationLimited(bytesInFlight);
  }

  @Override
  public void onAckProcessed(long nowNs, long bytesInFlight) {
    boolean valid = rate.generateSample(minRttNs);
    long acked = rate.newlyAckedBytes();
    loss.onAcked(acked);
    roundStart = false;
    if (rate.samplePresent() && rate.samplePriorDeliveredBytes() >= nextRoundDelivered) {
      // §5.5.1: a round ends when a packet sent after the previous round's end is acknowledged.
      roundStart = true;
      nextRoundDelivered = rate.deliveredBytes();
    }
    if (valid) {
      long bw = rate.sampleRateBytesPerSecond();
      // §5.5.5: application-limited samples may raise the estimate, never lower it.
      if (!rate.sampleAppLimited() || bw >= maxBw.maxBytesPerSecond()) {
        maxBw.update(bw);
      }
      roundMaxBw = Math.max(roundMaxBw, bw);
      roundAppLimited |= rate.sampleAppLimited();
    }
    if (roundStart) {
      onRoundEnd(nowNs);
      roundMaxSentInflight = 0;
      roundMinInflight = Long.MAX_VALUE;
      roundMinRttNs = Long.MAX_VALUE;
    }
    roundMinInflight = Math.min(roundMinInflight, bytesInFlight);
    updateStateOnAck(nowNs, bytesInFlight);
    checkProbeRtt(nowNs, bytesInFlight);
    setPacingRate();
    setCwnd(acked);
  }

  private void onRoundEnd(long nowNs) {
    boolean tooHigh = loss.roundLossTooHigh(mss);
    long deliveredInRound = loss.roundAckedBytes();
    roundsSinceProbe++;
    switch (mode) {
      case STARTUP:
        checkFullPipe();
        // §5.3.1.3: STARTUP ends on loss only after BBRStartupFullLossCnt (6) discontiguous
        // lost ranges in a round, so a handful of early losses or one burst (a PMTU black hole,
        // a fade that takes the whole first flight) cannot freeze a model built from the first
        // few round trips; a queue overflowing under STARTUP's 2.77x pacing loses many ranges.
        if (tooHigh && loss.roundLostRanges() >= STARTUP_FULL_LOSS_COUNT) {
          // §5.3.1.3: excessive loss ends STARTUP and caps inflight at what the pipe held.
          filledPipe = true;
          inflightHi = Math.max(bdpBytes(1.0), deliveredInRound);
        }
        if (filledPipe) {
          enter(Mode.DRAIN, DRAIN_PACING_GAIN, STARTUP_CWND_GAIN);
        }
        break;
      case PROBE_BW_REFILL:
        startProbeUp();
        break;
      case PROBE_BW_UP:
        roundsInUp++;
        if (tooHigh) {
          // §5.5.10: the probe overfilled the queue; the upper bound is what got through.
          // Never below beta x the model's BDP: a stall (a cellular outage) can make a round
          // deliver almost nothing without the path having shrunk.
          inflightHi = Math.max(deliveredInRound, (long) (BETA * bdpBytes(1.0)));
          startProbeDown(nowNs);
        } else if (inflightHi != Long.MAX_VALUE) {
          // §5.3.3.4: no excess loss at this level; raise the bound faster each round.
          inflightHi += probeUpBytes;
          probeUpBytes = Math.min(probeUpBytes * 2, 1L << 40);
        }
        break;
      case PROBE_BW_DOWN:
      case PROBE_BW_CRUISE:
        if (!tooHigh && !roundAppLimited && standingQueue()
            && roundMaxBw < RATE_FELL * maxBw.maxBytesPerSecond()) {
          // The path's rate fell (a cellular link fading): the windowed max still holds the old
          // peak for up to two probe cycles (MaxBwFilterLen, see MaxBandwidthFilter), and 1.25 x that BDP keeps the excess in
          // the bottleneck queue for seconds. A round in which every RTT sample stayed half a
          // min RTT above the min RTT and the delivery rate stayed under 0.7 x max bw is read
          // like a lossy round of §5.5.10: bw_lo falls to what the round delivered, by at most
          // beta per round, and is forgotten at the next REFILL (§5.3.3.3) or PROBE_RTT exit.
          // Both conditions are needed: a loss-based flow filling the queue keeps the delay
          // high while this flow's delivery rate stays near its max, and cutting on delay
          // alone would hand that flow the link. An application-limited round says nothing
          // about the path's rate (§5.5.5), so it never lowers the bound.
          long bwBase = Math.min(bwLo, maxBw.maxBytesPerSecond());
          bwLo = Math.max(roundMaxBw, (long) (BETA * bwBase));
        }
        // fall through: excess loss is handled as in the other phases
      default:
        if (tooHigh) {
          // §5.5.10: lower bounds cut by beta, but never below what this round delivered.
          long bwBase = Math.min(bwLo, maxBw.maxBytesPerSecond());
          bwLo = Math.max(roundMaxBw, (long) (BETA * bwBase));
          long inflightBase = Math.min(inflightLo, cwndBytes);
          inflightLo = Math.max(deliveredInRound, (long) (BETA * inflightBase));
        }
        break;
    }
    loss.startRound();
    roundMaxBw = 0;
    roundAppLimited = false;
  }

  private void checkFullPipe() {
    if (rate.sampleAppLimited()) {
      // §5.3.1.2: an application-limited round says nothing about the pipe. This holds for the
      // persistent-queue test too: its BDP comes from the bandwidth estimate, which after an
      // application-limited phase (a server acknowledging an upload) can be far below the path's.
      return;
    }
    long bw = maxBw.maxBytesPerSecond();
    // A round held to the background window (background data only, its flight kept to the BDP
    // plus quanta) can grow the estimate only by those quanta, 10-20% a round on a 1.1 Mbit/s,
    // 200 ms path: the 25% rule would end STARTUP on a fraction of the link's rate, and PROBE_BW
    // would then pace every later response, urgent ones too, at that rate for seconds. Such a
    // round counts as growing if it grew by 5%.
    boolean held = heldToBackgroundWindow();
    if (bw >= fullBw * (held ? HELD_FULL_BW_GROWTH : FULL_BW_GROWTH)) {
      // Still growing by 25% a round: the pipe is not full, whatever the delay says. A queue on
      // the reverse path (the peer's upload delaying its ACKs) inflates every RTT sample while
      // the delivery rate keeps doubling.
      fullBw = bw;
      fullBwRounds = 0;
      return;
    }
    if (persistentQueue()) {
      // A round without growth in which the flight never fell below 1.5 BDP and no RTT sample
      // came within half the min RTT of it: half a BDP sat in the bottleneck queue for a whole
      // round, so the pipe is full without waiting for the three-round rule, which would let
      // STARTUP's 2 BDP window hold up to a BDP of queue for more queue-stretched rounds: on a
      // 200 ms, 1 Mbit/s path, a second or more of latency for every other stream. (A sample
      // inflated by jitter postpones this by one round at most.)
      filledPipe = true;
      return;
    }
    if (++fullBwRounds >= FULL_BW_ROUNDS) {
      // §5.3.1.2: three rounds without 25% growth: the pipe is full.
      filledPipe = true;
    }
  }

  /**
   * Whether this round's flight reached the background window (within a datagram) but never
   * exceeded it, while the background window was below the congestion window: all that was
   * sent was background data. Data at the default urgency fills STARTUP's whole window.
   */
  private boolean heldToBackgroundWindow() {
    long held = backgroundWindowBytes();
    return held + mss < cwndBytes && roundMaxSentInflight + mss > held
        && roundMaxSentInflight <= held;
  }

  /** No RTT sample of the round came within half a min RTT of the min RTT. */
  private boolean standingQueue() {
    return minRttNs != Long.MAX_VALUE && roundMinRttNs != Long.MAX_VALUE && roundMaxBw > 0
        && roundMinRttNs >= minRttNs + (long) (STANDING_QUEUE_RTT * minRttNs);
  }

  private boolean persistentQueue() {
    long bw = bandwidth();
    if (bw == 0 || minRttNs == Long.MAX_VALUE || roundMinInflight == Long.MAX_VALUE) {
      return false;
    }
    long bdp = (long) (bw * (minRttNs / 1e9));
    // Both the flight and the delay must show the queue: after a stall (a loss burst) the
    // bandwidth estimate, and with it the BDP, can be far too low while nothing is queued.
    return roundMinInflight >= bdp + (long) (PERSISTENT_QUEUE_BDP * bdp) + sendQuantum()
        && roundMinRttNs != Long.MAX_VALUE
        && roundMinRttNs >= minRttNs + (long) (PERSISTENT_QUEUE_BDP * minRttNs);
  }

  /**
   * §5.6.3: the send quantum, pacing rate x 1 ms between one datagram (below 1.2 Mbit/s) or two
   * and 64 KiB.
   */
  private long sendQuantum() {
    long floor = (pacingRateBytesPerSecond < LOW_RATE_BYTES_PER_SECOND ? 1L : 2L) * mss;
    return Math.max(floor, Math.min(pacingRateBytesPerSecond / 1000, 64 * 1024));
  }

  private void updateStateOnAck(long nowNs, long inflight) {
    switch (mode) {
      case DRAIN:
        // §5.3.2: leave DRAIN once the queue STARTUP built is gone.
        if (inflight <= bdpBytes(1.0)) {
          startProbeDown(nowNs);
        }
        break;
      case PROBE_BW_DOWN:
        if (timeToProbe(nowNs)) {
          startRefill();
        } else if (inflight <= inflightWithHeadroom() && inflight <= bdpBytes(1.0)) {
          enter(Mode.PROBE_BW_CRUISE, 1.0, PROBE_BW_CWND_GAIN);
        }
        break;
      case PROBE_BW_CRUISE:
        if (timeToProbe(nowNs)) {
          startRefill();
        }
        break;
      case PROBE_BW_UP:
        // §5.3.3.4: the probe is done once the flight reached 1.25 BDP for a round.
        if (roundsInUp >= 1 && inflight >= bdpBytes(UP_PACING_GAIN) || roundsInUp >= MAX_UP_ROUNDS) {
          startProbeDown(nowNs);
        }
        break;
      default:
        break;
    }
  }

  private boolean timeToProbe(long nowNs) {
    // §5.3.3.5: probe after 2-3 s, or after as many rounds as Reno would need to grow one BDP
    // (capped at 63) so a Reno flow sharing the path is not starved.
    long bdpPackets = Math.max(1, bdpBytes(1.0) / mss);
    return nowNs - cycleStampNs >= probeWaitNs || roundsSinceProbe >= Math.min(63, bdpPackets);
  }

  private void startProbeDown(long nowNs) {
    maxBw.advance();
    cycleStampNs = nowNs;
    roundsSinceProbe = 0;
    // §5.3.3.5: a random wait of 2-3 s de-synchronises flows sharing a bottleneck.
    probeWaitNs = 2_000_000_000L + (nextRandom() >>> 1) % 1_000_000_000L;
    enter(Mode.PROBE_BW_DOWN, DOWN_PACING_GAIN, PROBE_BW_CWND_GAIN);
  }

  private void startRefill() {
    // §5.3.3.3: forget short-term bounds; refill the pipe at the estimated rate for a round.
    bwLo = Long.MAX_VALUE;
    inflightLo = Long.MAX_VALUE;
    enter(Mode.PROBE_BW_REFILL, 1.0, PROBE_BW_CWND_GAIN);
  }

  private void startProbeUp() {
    roundsInUp = 0;
    probeUpBytes = mss;
    enter(Mode.PROBE_BW_UP, UP_PACING_GAIN, UP_CWND_GAIN);
  }

  private void enter(Mode next, double pacing, double cwnd) {
    mode = next;
    pacingGain = pacing;
    cwndGain = cwnd;
  }

  private void updateMinRtt(long nowNs, long sampleNs) {
    if (sampleNs <= 0) {
      return;
    }
    // §5.5.4: the 5 s window decides when to PROBE_RTT, the 10 s one bounds min RTT's age.
    probeRttExpired = nowNs - probeRttMinStampNs > PROBE_RTT_INTERVAL_NS;
    if (sampleNs < probeRttMinNs || probeRttExpired) {
      probeRttMinNs = sampleNs;
      probeRttMinStampNs = nowNs;
    }
    if (probeRttMinNs < minRttNs || nowNs - minRttStampNs > MIN_RTT_FILTER_NS) {
      minRttNs = probeRttMinNs;
      minRttStampNs = probeRttMinStampNs;
    }
  }

  private void checkProbeRtt(long nowNs, long inflight) {
    if (mode != Mode.PROBE_RTT && probeRttExpired && minRttNs != Long.MAX_VALUE) {
      probeRttExpired = false;
      priorCwndBytes = Math.max(priorCwndBytes, cwndBytes);
      probeRttDoneNs = Long.MIN_VALUE;
      enter(Mode.PROBE_RTT, 1.0, PROBE_RTT_CWND_GAIN);
      return;
    }
    if (mode != Mode.PROBE_RTT) {
      return;
    }
    if (probeRttDoneNs == Long.MIN_VALUE) {
      // §5.3.4.4: once the flight is down to the PROBE_RTT window, hold it 200 ms and a round.
      if (inflight <= probeRttCwndBytes()) {
        probeRttDoneNs = nowNs + PROBE_RTT_DURATION_NS;
        probeRttRoundDone = false;
        nextRoundDelivered = rate.deliveredBytes();
      }
      return;
    }
    if (roundStart) {
      probeRttRoundDone = true;
    }
    if (probeRttRoundDone && nowNs >= probeRttDoneNs) {
      probeRttMinStampNs = nowNs;
      cwndBytes = Math.max(cwndBytes, priorCwndBytes);
      priorCwndBytes = 0;
      bwLo = Long.MAX_VALUE;
      inflightLo = Long.MAX_VALUE;
      if (filledPipe) {
        startProbeDown(nowNs);
        enter(Mode.PROBE_BW_CRUISE, 1.0, PROBE_BW_CWND_GAIN);
      } else {
        enter(Mode.STARTUP, STARTUP_PACING_GAIN, STARTUP_CWND_GAIN);
      }
    }
  }

  private long bandwidth() {
    return Math.min(maxBw.maxBytesPerSecond(), bwLo);
  }

  /** §5.6.2: {@code gain} x BDP plus a few send quanta for batching, or the IW with no model. */
  private long bdpBytes(double gain) {
    long bw = bandwidth();
    if (bw == 0 || minRttNs == Long.MAX_VALUE) {
      return WindowPacing.initialWindowBytes(mss);
    }
    long bdp = (long) (gain * bw * (minRttNs / 1e9));
    return bdp + 3 * sendQuantum();
  }

  private long inflightWithHeadroom() {
    if (inflightHi == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    return Math.max((long) (inflightHi * (1.0 - HEADROOM)), (long) MIN_PIPE_PACKETS * mss);
  }

  private long probeRttCwndBytes() {
    return Math.max((long) (PROBE_RTT_CWND_GAIN * bdpBytes(1.0)), (long) MIN_PIPE_PACKETS * mss);
  }

  private void setPacingRate() {
    long bw = bandwidth();
    if (bw == 0) {
      return;
    }
    if (pacingRateBytesPerSecond == 0) {
      pacingRateBytesPerSecond = initialPacingRate(srttNs);
    }
    long r = (long) (pacingGain * bw * (1.0 - PACING_MARGIN));
    if (!filledPipe && fullBwRounds == 0) {
      // While every round so far has grown the bandwidth (§5.3.1.2: no round without growth yet),
      // the rate also keeps up with the window STARTUP has grown: RFC 9002 §7.7's slow-start
      // pacing (2 x cwnd / srtt), the rule that paced the initial window (initialPacingRate). Rate
      // samples lag the window when ACKs arrive in bursts (a trace uplink), which held STARTUP
      // at its initial rate for several rounds.
      r = Math.max(r, WindowPacing.rateBytesPerSecond(cwndBytes, srttNs, true));
    }
    // §5.6.1: until the pipe is full the rate only rises.
    if (filledPipe || r > pacingRateBytesPerSecond) {
      pacingRateBytesPerSecond = r;
    }
  }

  private void setCwnd(long ackedBytes) {
    long target = bdpBytes(cwndGain);
    if (filledPipe) {
      cwndBytes = Math.min(cwndBytes + ackedBytes, target);
    } else if (cwndBytes < target || rate.deliveredBytes() < WindowPacing.initialWindowBytes(mss)) {
      cwndBytes += ackedBytes;
      if (rate.deliveredBytes() >= WindowPacing.initialWindowBytes(mss)) {
        // One ACK that covers a long stall (a lost flight recovered at once) must not carry the
        // window far past STARTUP's 2 BDP: the overshoot would only fill the bottleneck queue.
        cwndBytes = Math.min(cwndBytes, Math.max(target, WindowPacing.initialWindowBytes(mss)));
      }
    }
    long minPipe = (long) MIN_PIPE_PACKETS * mss;
    cwndBytes = Math.max(cwndBytes, minPipe);
    // §5.6.4.4: bound the window by the model's limits.
    long cap = Long.MAX_VALUE;
    if (mode == Mode.PROBE_BW_CRUISE || mode == Mode.PROBE_RTT) {
      cap = inflightWithHeadroom();
    } else {
      cap = inflightHi;
    }
    cap = Math.max(Math.min(cap, inflightLo), minPipe);
    if (mode == Mode.PROBE_RTT) {
      cap = Math.min(cap, probeRttCwndBytes());
    }
    cwndBytes = Math.min(cwndBytes, cap);
  }

  @Override
  public void onPersistentCongestion(long nowNs) {
    // RFC 9002 §7.6.2: the path may have changed; keep the model but restart from a small window.
    priorCwndBytes = Math.max(priorCwndBytes, cwndBytes);
    cwndBytes = (long) MIN_PIPE_PACKETS * mss;
  }

  @Override
  public void onMaxDatagramSizeChanged(int bytes) {
    mss = WindowPacing.checkDatagramSize(bytes);
    cwndBytes = Math.max(cwndBytes, (long) MIN_PIPE_PACKETS * mss);
  }

  @Override
  public long congestionWindowBytes() {
    return cwndBytes;
  }

  /**
   * Background data (RFC 9218 §4.1: less urgent than the default) may fill the model's BDP plus
   * its send quanta in STARTUP, DRAIN and PROBE_BW DOWN and CRUISE; the rest of the window is
   * kept for urgent data. REFILL and UP, which probe a known path, may fill the whole window.
   */
  @Override
  public long backgroundWindowBytes() {
    if (backgroundHeldToBdp()) {
      // In STARTUP, never below the initial window (RFC 9002 §7.2): the first rounds' estimate
      // comes from the handshake's and the first flight's few packets.
      long floor = mode == Mode.STARTUP ? WindowPacing.initialWindowBytes(mss)
          : (long) MIN_PIPE_PACKETS * mss;
      return Math.min(cwndBytes, Math.max(bdpBytes(1.0), floor));
    }
    return cwndBytes;
  }

  /**
   * In STARTUP, draft-ietf-ccwg-bbr §5.3.1.1's window of 2 BDP holds up to one BDP in the
   * bottleneck queue in the round the pipe fills, and it stays there until the full-pipe test
   * (§5.3.1.2) and DRAIN (§5.3.2) have run, for several queue-stretched rounds; a sender cannot
   * see the round in which that happens before it has happened. An urgent response (RFC 9218
   * §4) sent then waits behind the whole queue: on a 1.1 Mbit/s, 200 ms path, 200 ms more. So
   * background data never gets STARTUP's headroom: it grows the estimate only by the send
   * quanta above the BDP each round (checkFullPipe counts 5% as growth for such rounds), while
   * urgent data and data at the default urgency still use STARTUP's full window and gains.
   * DRAIN holds background data at the BDP too, so its queue empties at DRAIN's gain without
   * bulk data refilling it (§5.3.2).
   */
  private boolean backgroundHeldToBdp() {
    return switch (mode) {
      case STARTUP, DRAIN, PROBE_BW_DOWN, PROBE_BW_CRUISE -> true;
      default -> false;
    };
  }

  @Override
  public long pacingRateBytesPerSecond(RttView rtt) {
    if (pacingRateBytesPerSecond == 0) {
      return initialPacingRate(rtt.smoothedRttNs());
    }
    return pacingRateBytesPerSecond;
  }

  /**
   * §5.6.1 BBRInitPacingRate, with gain 2 instead of 2.77: before the first bandwidth sample the
   * initial window is spread over half the RTT like the window-based controllers' (FIELD-NOTES:
   * bursts of the initial window overran users' links); STARTUP's gain applies from the first
   * sample on.
   */
  private long initialPacingRate(long smoothedRttNs) {
    return WindowPacing.rateBytesPerSecond(cwndBytes, smoothedRttNs, true);
  }

  @Override
  public boolean inSlowStart() {
    return mode == Mode.STARTUP;
  }

  @Override
  public String name() {
    return "BBR";
  }

  /** The current state, for reports and tests. */
  public Mode mode() {
    return mode;
  }

  /** The model's bandwidth estimate, bytes per second; 0 before the first sample. */
  public long bandwidthEstimateBytesPerSecond() {
    return bandwidth();
  }

  /** The model's minimum RTT, ns; {@code Long.MAX_VALUE} before the first sample. */
  public long minRttNs() {
    return minRttNs;
  }

  /** The loss-derived upper bound on bytes in flight; {@code Long.MAX_VALUE} if none. */
  public long inflightHighBytes() {
    return inflightHi;
  }

  private long nextRandom() {
    // xorshift64*: allocation-free and reproducible from the seed.
    long x = rngState;
    x ^= x >>> 12;
    x ^= x << 25;
    x ^= x >>> 27;
    rngState = x;
    return x * 0x2545F4914F6CDD1DL;
  }
}
