package dev.tern.transport.udp.congestion;

/**
 * CUBIC (RFC 9438) with HyStart++ (RFC 9406) to leave slow start before the queue overflows.
 * Windows are kept in bytes; the cubic function is evaluated in bytes by scaling C with the
 * segment size (RFC 9438 §4.1 states it in segments).
 */
public final class Cubic extends WindowController {
  /** RFC 9438 §4.1: C = 0.4 segments / s^3. */
  static final double C = 0.4;
  /** RFC 9438 §4.6: beta_cubic = 0.7. */
  static final double BETA = 0.7;
  /** RFC 9438 §4.3: alpha_cubic = 3 (1 - beta) / (1 + beta). */
  static final double RENO_ALPHA = 3.0 * (1.0 - BETA) / (1.0 + BETA);

  private final HyStartPlusPlus hystart = new HyStartPlusPlus();
  /** RFC 9438 §4.1: W_max, bytes. */
  private double wMaxBytes;
  /** RFC 9438 §4.3: cwnd_prior, bytes. */
  private double cwndPriorBytes;
  /** RFC 9438 §4.3: W_est, bytes. */
  private double wEstBytes;
  private double renoAlpha = RENO_ALPHA;
  private double kSeconds;
  /** Start of the current congestion-avoidance epoch, or {@code Long.MIN_VALUE} if none. */
  private long epochStartNs = Long.MIN_VALUE;
  // RFC 9438 §4.9: the growth state before the current congestion event, for its undo.
  private double priorWMaxBytes;
  private double priorCwndPriorBytes;
  private double priorWEstBytes;
  private double priorRenoAlpha;
  private double priorKSeconds;
  private long priorEpochStartNs;
  private long lastAckNs = Long.MIN_VALUE;

  /** A controller for datagrams of up to {@code maxDatagramSize} bytes. */
  public Cubic(int maxDatagramSize) {
    super(maxDatagramSize);
  }

  @Override
  public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {
    use.onPacketSent(nowNs, bytesInFlight, cwndBytes, maxDatagramSize, inSlowStart());
    hystart.onPacketSent(packetNumber);
  }

  @Override
  public void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      RttView rtt, long bytesInFlight) {
    long sinceLastAckNs = lastAckNs == Long.MIN_VALUE ? 0 : nowNs - lastAckNs;
    lastAckNs = nowNs;
    // RFC 9002 §7.3.2: no increase for packets sent before recovery started.
    if (sentTimeNs <= recoveryStartNs) {
      return;
    }
    boolean slowStart = inSlowStart();
    if (!use.windowWasUsed(sentTimeNs, rtt.smoothedRttNs())) {
      // RFC 9438 §5.8: no growth while application-limited; the epoch slides so the cubic curve
      // does not jump ahead by the time spent idle.
      if (epochStartNs != Long.MIN_VALUE) {
        epochStartNs += sinceLastAckNs;
      }
      return;
    }
    if (slowStart) {
      int growth = hystart.onAck(packetNumber, rtt.latestRttNs());
      if (growth == HyStartPlusPlus.EXIT) {
        // RFC 9406 §4.2: CSS done; continue in congestion avoidance from here.
        ssthreshBytes = cwndBytes;
        return;
      }
      cwndBytes += bytes / growth;
      return;
    }
    congestionAvoidance(nowNs, bytes, rtt.smoothedRttNs());
  }

  private void congestionAvoidance(long nowNs, int ackedBytes, long srttNs) {
    double mss = maxDatagramSize;
    if (epochStartNs == Long.MIN_VALUE) {
      epochStartNs = nowNs;
      // RFC 9438 §4.2 (and §4.10 after slow start without loss): K from W_max and cwnd_epoch.
      if (wMaxBytes < cwndBytes) {
        wMaxBytes = cwndBytes;
        cwndPriorBytes = cwndBytes;
      }
      kSeconds = Math.cbrt((wMaxBytes - cwndBytes) / (mss * C));
      wEstBytes = cwndBytes;
    }
    double t = (nowNs - epochStartNs) / 1e9;
    double rttSeconds = (srttNs > 0 ? srttNs : WindowPacing.INITIAL_RTT_NS) / 1e9;
    // RFC 9438 §4.2: the target is W_cubic one RTT ahead, clamped to [cwnd, 1.5 cwnd].
    double target = wCubicBytes(t + rttSeconds);
    target = Math.max(cwndBytes, Math.min(target, 1.5 * cwndBytes));
    // RFC 9438 §4.3: the Reno-friendly estimate grows alpha segments per window acknowledged, and
    // alpha becomes 1 once W_est has reached cwnd_prior.
    wEstBytes += renoAlpha * mss * ackedBytes / cwndBytes;
    if (wEstBytes >= cwndPriorBytes) {
      renoAlpha = 1.0;
    }
    if (wCubicBytes(t) < wEstBytes) {
      cwndBytes = Math.max(cwndBytes, (long) wEstBytes);
    } else {
      // RFC 9438 §4.4/§4.5: grow by (target - cwnd) / cwnd segments per segment acknowledged.
      cwndBytes += (long) ((target - cwndBytes) * ackedBytes / cwndBytes);
    }
  }

  private double wCubicBytes(double tSeconds) {
    double d = tSeconds - kSeconds;
    return C * d * d * d * maxDatagramSize + wMaxBytes;
  }

  @Override
  public void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      long bytesInFlight) {
    if (sentTimeNs <= recoveryStartNs) {
      return;
    }
    saveForUndo();
    priorWMaxBytes = wMaxBytes;
    priorCwndPriorBytes = cwndPriorBytes;
    priorWEstBytes = wEstBytes;
    priorRenoAlpha = renoAlpha;
    priorKSeconds = kSeconds;
    priorEpochStartNs = epochStartNs;
    recoveryStartNs = nowNs;
    hystart.reset();
    // RFC 9438 §4.7: fast convergence releases bandwidth when W_max shrinks.
    if (cwndBytes < wMaxBytes) {
      wMaxBytes = cwndBytes * (1.0 + BETA) / 2.0;
    } else {
      wMaxBytes = cwndBytes;
    }
    cwndPriorBytes = cwndBytes;
    // RFC 9438 §4.6: multiplicative decrease by beta_cubic.
    ssthreshBytes = Math.max((long) (cwndBytes * BETA),
        WindowPacing.minimumWindowBytes(maxDatagramSize));
    cwndBytes = ssthreshBytes;
    renoAlpha = RENO_ALPHA;
    epochStartNs = Long.MIN_VALUE;
  }

  @Override
  public void onPersistentCongestion(long nowNs) {
    // RFC 9438 §4.8 / RFC 9002 §7.6.2: treat as a timeout; restart from the minimum window.
    onPacketLost(nowNs, -1, 0, nowNs - 1, 0);
    forgetUndo();
    cwndBytes = WindowPacing.minimumWindowBytes(maxDatagramSize);
    recoveryStartNs = nowNs;
  }

  @Override
  public void onSpuriousCongestion(long nowNs, long eventStartNs) {
    if (!canUndo(eventStartNs)) {
      return;
    }
    // RFC 9438 §4.9: W_max, K, the epoch and the Reno-friendly estimate as before the event.
    wMaxBytes = priorWMaxBytes;
    cwndPriorBytes = priorCwndPriorBytes;
    wEstBytes = priorWEstBytes;
    renoAlpha = priorRenoAlpha;
    kSeconds = priorKSeconds;
    epochStartNs = priorEpochStartNs;
    super.onSpuriousCongestion(nowNs, eventStartNs);
  }

  @Override
  public String name() {
    return "CUBIC";
  }

  /** RFC 9438's W_max in bytes, for tests. */
  double wMaxBytes() {
    return wMaxBytes;
  }
}
