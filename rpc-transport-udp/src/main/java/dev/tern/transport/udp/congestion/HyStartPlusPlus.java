package dev.tern.transport.udp.congestion;

/**
 * HyStart++ (RFC 9406): leaves slow start when round-trip times rise, before the queue overflows,
 * passing through Conservative Slow Start (CSS) in case the rise was noise. It counts rounds by
 * packet number and answers, for each acknowledged packet, how fast the window may grow.
 */
final class HyStartPlusPlus {
  /** Grow as in slow start. */
  static final int SLOW_START = 1;
  /** RFC 9406 §4.3: CSS_GROWTH_DIVISOR = 4. */
  static final int CONSERVATIVE = 4;
  /** Leave slow start now (RFC 9406 §4.2: CSS_ROUNDS done). */
  static final int EXIT = 0;

  // RFC 9406 §4.3 constants.
  private static final long MIN_RTT_THRESH_NS = 4_000_000L;
  private static final long MAX_RTT_THRESH_NS = 16_000_000L;
  private static final int MIN_RTT_DIVISOR = 8;
  private static final int N_RTT_SAMPLE = 8;
  private static final int CSS_ROUNDS = 5;

  private long largestSentPn = -1;
  private long windowEndPn = -1;
  private long lastRoundMinRttNs = Long.MAX_VALUE;
  private long currentRoundMinRttNs = Long.MAX_VALUE;
  private int rttSampleCount;
  private long cssBaselineMinRttNs = Long.MAX_VALUE;
  private int cssRoundsDone;
  private boolean inCss;

  void onPacketSent(long packetNumber) {
    if (packetNumber > largestSentPn) {
      largestSentPn = packetNumber;
    }
  }

  /** Whether Conservative Slow Start is in progress. */
  boolean inConservativeSlowStart() {
    return inCss;
  }

  /**
   * A packet sent in slow start was acknowledged with this RTT sample. Returns {@link #SLOW_START},
   * {@link #CONSERVATIVE} (divide the increase by 4) or {@link #EXIT}.
   */
  int onAck(long packetNumber, long latestRttNs) {
    if (packetNumber >= windowEndPn) {
      // RFC 9406 §4.2: a round ends when the last packet of the previous round is acknowledged.
      windowEndPn = largestSentPn + 1;
      lastRoundMinRttNs = currentRoundMinRttNs;
      currentRoundMinRttNs = Long.MAX_VALUE;
      rttSampleCount = 0;
      if (inCss && ++cssRoundsDone >= CSS_ROUNDS) {
        reset();
        return EXIT;
      }
    }
    if (latestRttNs > 0 && latestRttNs < currentRoundMinRttNs) {
      currentRoundMinRttNs = latestRttNs;
    }
    rttSampleCount++;
    if (rttSampleCount >= N_RTT_SAMPLE && currentRoundMinRttNs != Long.MAX_VALUE) {
      if (!inCss && lastRoundMinRttNs != Long.MAX_VALUE) {
        long thresh = Math.max(MIN_RTT_THRESH_NS,
            Math.min(lastRoundMinRttNs / MIN_RTT_DIVISOR, MAX_RTT_THRESH_NS));
        if (currentRoundMinRttNs >= lastRoundMinRttNs + thresh) {
          // RFC 9406 §4.2: the delay rose; enter CSS.
          cssBaselineMinRttNs = currentRoundMinRttNs;
          inCss = true;
          cssRoundsDone = 0;
        }
      } else if (inCss && currentRoundMinRttNs < cssBaselineMinRttNs) {
        // RFC 9406 §4.2: the rise was spurious; resume slow start.
        inCss = false;
        cssBaselineMinRttNs = Long.MAX_VALUE;
      }
    }
    return inCss ? CONSERVATIVE : SLOW_START;
  }

  /** Slow start ended (loss, ECN or CSS done): start afresh if slow start is ever re-entered. */
  void reset() {
    inCss = false;
    cssRoundsDone = 0;
    cssBaselineMinRttNs = Long.MAX_VALUE;
    lastRoundMinRttNs = Long.MAX_VALUE;
    currentRoundMinRttNs = Long.MAX_VALUE;
    rttSampleCount = 0;
    windowEndPn = largestSentPn + 1;
  }
}
