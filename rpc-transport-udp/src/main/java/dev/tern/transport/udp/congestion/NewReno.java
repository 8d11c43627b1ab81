package dev.tern.transport.udp.congestion;

/**
 * NewReno as RFC 9002 §7 and Appendix B specify it: slow start, congestion avoidance, one
 * window reduction per recovery period, persistent congestion collapsing to the minimum window.
 * Pacing rate 5/4 x cwnd / smoothed RTT (RFC 9002 §7.7).
 */
public final class NewReno implements CongestionController {
  /** RFC 9002 §7.3.2: the loss reduction factor, 1/2. */
  private static final int LOSS_REDUCTION_DIVISOR = 2;

  private final int maxDatagramBytes;
  private long cwndBytes;
  private long ssthreshBytes = Long.MAX_VALUE;
  private long recoveryStartNs = Long.MIN_VALUE;
  private long ackedInAvoidanceBytes;

  /** A controller for datagrams of at most {@code maxDatagramBytes}. */
  public NewReno(int maxDatagramBytes) {
    if (maxDatagramBytes < 1200) {
      throw new IllegalArgumentException("maxDatagramBytes must be >= 1200: " + maxDatagramBytes);
    }
    this.maxDatagramBytes = maxDatagramBytes;
    this.cwndBytes = initialWindowBytes(maxDatagramBytes);
  }

  /** RFC 9002 §7.2: min(10 x max_datagram_size, max(14720, 2 x max_datagram_size)). */
  public static long initialWindowBytes(int maxDatagramBytes) {
    return Math.min(10L * maxDatagramBytes, Math.max(14720L, 2L * maxDatagramBytes));
  }

  private long minimumWindowBytes() {
    return 2L * maxDatagramBytes; // RFC 9002 §7.2
  }

  @Override
  public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {}

  @Override
  public void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      RttView rtt, long bytesInFlight) {
    // RFC 9002 §7.3.2: packets sent before the recovery period began do not grow the window.
    if (sentTimeNs <= recoveryStartNs) {
      return;
    }
    if (cwndBytes < ssthreshBytes) {
      cwndBytes += bytes; // RFC 9002 §7.3.1: slow start
      return;
    }
    // RFC 9002 §7.3.3: one max_datagram_size per congestion window acknowledged.
    ackedInAvoidanceBytes += bytes;
    if (ackedInAvoidanceBytes >= cwndBytes) {
      ackedInAvoidanceBytes -= cwndBytes;
      cwndBytes += maxDatagramBytes;
    }
  }

  @Override
  public void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      long bytesInFlight) {
    if (sentTimeNs <= recoveryStartNs) {
      return; // RFC 9002 §7.3.2: one reduction per recovery period
    }
    recoveryStartNs = nowNs;
    ssthreshBytes = Math.max(cwndBytes / LOSS_REDUCTION_DIVISOR, minimumWindowBytes());
    cwndBytes = ssthreshBytes;
    ackedInAvoidanceBytes = 0;
  }

  @Override
  public void onPersistentCongestion(long nowNs) {
    cwndBytes = minimumWindowBytes(); // RFC 9002 §7.6.2
    recoveryStartNs = nowNs;
    ackedInAvoidanceBytes = 0;
  }

  @Override
  public long congestionWindowBytes() {
    return cwndBytes;
  }

  @Override
  public long pacingRateBytesPerSecond(RttView rtt) {
    long srtt = Math.max(rtt.smoothedRttNs(), 1_000L);
    // RFC 9002 §7.7: N = 1.25 so that pacing does not under-use the window.
    return (long) (1.25 * cwndBytes * 1_000_000_000.0 / srtt);
  }

  @Override
  public boolean inSlowStart() {
    return cwndBytes < ssthreshBytes;
  }

  @Override
  public String name() {
    return "newreno";
  }
}
