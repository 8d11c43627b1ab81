package dev.tern.transport.udp.congestion;

/**
 * Counts one round's delivered and lost bytes and decides whether its loss rate is clearly above
 * BBR's 2% threshold (draft-ietf-ccwg-bbr §5.5.10, BBRLossThresh). "Clearly" means beyond two
 * standard deviations of what 2% random loss would give over the round's packets, and at least two
 * packets: a path with steady random loss near the threshold (FIELD-NOTES: 1.5% between cloud
 * VMs) then rarely trips it, while a queue overflowing at a probe loses far more and does.
 */
final class BbrLossRound {
  private static final int MIN_LOST_PACKETS = 2;
  private static final double SIGMAS = 2.0;

  private long roundLostBytes;
  private long roundAckedBytes;
  private int roundLostRanges;
  private long lastLostPn = -2;

  /** A packet of {@code bytes} numbered {@code packetNumber} was declared lost. */
  void onLost(long packetNumber, long bytes) {
    roundLostBytes += bytes;
    if (packetNumber != lastLostPn + 1) {
      roundLostRanges++;
    }
    lastLostPn = packetNumber;
  }

  /**
   * Discontiguous ranges of packet numbers lost this round (draft-ietf-ccwg-bbr §5.3.1.3 counts
   * these for BBRStartupFullLossCnt): one burst that wipes out a flight is one loss event, not
   * one per packet.
   */
  int roundLostRanges() {
    return roundLostRanges;
  }

  void onAcked(long bytes) {
    roundAckedBytes += bytes;
  }

  long roundAckedBytes() {
    return roundAckedBytes;
  }

  long roundLostBytes() {
    return roundLostBytes;
  }

  /** Whether the round that just ended lost too much; datagrams of {@code mss} bytes. */
  boolean roundLossTooHigh(int mss) {
    double lostPackets = (double) roundLostBytes / mss;
    if (lostPackets < MIN_LOST_PACKETS) {
      return false;
    }
    double packets = (double) (roundLostBytes + roundAckedBytes) / mss;
    double expected = Bbr.LOSS_THRESH * packets;
    double sigma = Math.sqrt(expected * (1.0 - Bbr.LOSS_THRESH));
    return lostPackets > expected + SIGMAS * sigma;
  }

  void startRound() {
    roundLostBytes = 0;
    roundAckedBytes = 0;
    roundLostRanges = 0;
  }
}
