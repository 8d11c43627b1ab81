package dev.tern.transport.udp.congestion;

/** RFC 9002 §5's RTT estimator, for tests that drive controllers directly. */
final class TestRtt implements CongestionController.RttView {
  private long smoothedNs;
  private long varNs;
  private long latestNs;
  private long minNs = Long.MAX_VALUE;
  private boolean hasSample;

  TestRtt() {
    smoothedNs = WindowPacing.INITIAL_RTT_NS;
    varNs = smoothedNs / 2;
  }

  /** RFC 9002 §5.3 (no ACK delay in these tests). */
  void sample(long rttNs) {
    latestNs = rttNs;
    minNs = Math.min(minNs, rttNs);
    if (!hasSample) {
      hasSample = true;
      smoothedNs = rttNs;
      varNs = rttNs / 2;
      return;
    }
    varNs = (3 * varNs + Math.abs(smoothedNs - rttNs)) / 4;
    smoothedNs = (7 * smoothedNs + rttNs) / 8;
  }

  @Override
  public long smoothedRttNs() {
    return smoothedNs;
  }

  @Override
  public long latestRttNs() {
    return latestNs;
  }

  @Override
  public long minRttNs() {
    return minNs;
  }

  @Override
  public long rttVarNs() {
    return varNs;
  }
}
