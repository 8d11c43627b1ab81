package dev.tern.transport.udp.recovery;

import dev.tern.transport.udp.congestion.CongestionController;
import dev.tern.transport.udp.util.Saturating;

/** The RTT estimator of RFC 9002 §5. Mutable, owned by one connection. */
public final class RttEstimator implements CongestionController.RttView {
  /** RFC 9002 §6.2.2: the initial RTT before any sample, 333 ms. */
  public static final long INITIAL_RTT_NS = 333_000_000L;
  /** RFC 9002 §6.1.2: timer granularity, 1 ms. */
  public static final long GRANULARITY_NS = 1_000_000L;

  private long latestRttNs = 0;
  private long smoothedRttNs = INITIAL_RTT_NS;
  private long rttVarNs = INITIAL_RTT_NS / 2;
  private long minRttNs = Long.MAX_VALUE;
  private boolean hasSample;

  /**
   * Seeds the estimate before any sample with an RTT remembered from an earlier connection to
   * the same server (RFC 9002 §6.2.2 allows it for resumed connections; docs/protocol.md §4.1,
   * "Resumed connections"): smoothed RTT = the value, rttvar = half of it, as one sample would
   * set them; the first real sample still replaces both (§5.3). Ignored once a sample was taken
   * or for a value that is not positive.
   */
  public void seed(long rememberedRttNs) {
    if (hasSample || rememberedRttNs <= 0) {
      return;
    }
    smoothedRttNs = rememberedRttNs;
    rttVarNs = rememberedRttNs / 2;
  }

  /**
   * Adds a sample (RFC 9002 §5.3).
   *
   * @param rawRttNs time from sending the largest newly acknowledged packet to receiving the ACK
   * @param ackDelayNs the peer's reported ACK delay, already capped by the caller at max_ack_delay
   *     once the handshake is confirmed
   */
  public void onSample(long rawRttNs, long ackDelayNs) {
    if (rawRttNs <= 0) {
      rawRttNs = 1;
    }
    if (ackDelayNs < 0) {
      ackDelayNs = 0;
    }
    latestRttNs = rawRttNs;
    // RFC 9002 §5.2: min_rtt ignores ACK delay.
    minRttNs = Math.min(minRttNs, rawRttNs);
    if (!hasSample) {
      hasSample = true;
      smoothedRttNs = rawRttNs;
      rttVarNs = rawRttNs / 2;
      return;
    }
    // RFC 9002 §5.3: subtract the ACK delay unless that would go below min_rtt.
    long adjusted = rawRttNs;
    if (rawRttNs >= Saturating.add(minRttNs, ackDelayNs)) {
      adjusted = rawRttNs - ackDelayNs;
    }
    // Both stay within [0, max sample], so the weighted sums cannot overflow unless a sample is
    // near 2^60 ns; saturate anyway (the samples are times the peer can stretch).
    rttVarNs = Saturating.add(Saturating.mul(3, rttVarNs), Math.abs(smoothedRttNs - adjusted)) / 4;
    smoothedRttNs = Saturating.add(Saturating.mul(7, smoothedRttNs), adjusted) / 8;
  }

  /** Whether at least one sample was taken. */
  /**
   * Back to the initial values (RFC 9002 §A.3: initial RTT, no sample, no min_rtt), for a new
   * path whose round trip the old samples say nothing about (RFC 9000 §9.4).
   */
  public void reset() {
    latestRttNs = 0;
    smoothedRttNs = INITIAL_RTT_NS;
    rttVarNs = INITIAL_RTT_NS / 2;
    minRttNs = Long.MAX_VALUE;
    hasSample = false;
  }

  public boolean hasSample() {
    return hasSample;
  }

  @Override
  public long smoothedRttNs() {
    return smoothedRttNs;
  }

  @Override
  public long latestRttNs() {
    return hasSample ? latestRttNs : smoothedRttNs;
  }

  @Override
  public long minRttNs() {
    return minRttNs;
  }

  @Override
  public long rttVarNs() {
    return rttVarNs;
  }

  /**
   * The probe timeout without backoff (RFC 9002 §6.2.1): smoothed RTT + max(4 rttvar,
   * granularity) + the peer's max ACK delay.
   */
  public long ptoNs(long maxAckDelayNs) {
    return Saturating.add(Saturating.add(smoothedRttNs,
        Math.max(Saturating.mul(4, rttVarNs), GRANULARITY_NS)), Math.max(0, maxAckDelayNs));
  }

  /** RFC 9002 §6.1.2: the time threshold, 9/8 x max(smoothed, latest), at least 1 ms. */
  public long lossDelayNs() {
    long base = Math.max(smoothedRttNs, latestRttNs());
    return Math.max(Saturating.add(base, base / 8), GRANULARITY_NS);
  }
}
