package dev.tern.transport.udp.congestion;

/**
 * Pacing rates for window-based controllers (NewReno, CUBIC): {@code cwnd / srtt} scaled by a
 * gain, so a window is spread over a fraction of the round trip instead of leaving in one burst.
 */
final class WindowPacing {
  /**
   * Slow start: the window doubles every round trip, so each window (and the initial one) is
   * spread over half a round trip (RFC 9002 §7.7 suggests a factor above 1; FIELD-NOTES: spread
   * the initial window and each increase over about RTT/2).
   */
  static final double SLOW_START_GAIN = 2.0;
  /**
   * Congestion avoidance and recovery: a window over 4/5 of a round trip, the spread found best
   * after a congestion loss (FIELD-NOTES) and RFC 9002 §7.7's example factor of 1.25.
   */
  static final double AVOIDANCE_GAIN = 1.25;
  /** RFC 9002 §6.2.2: the initial RTT before any sample. */
  static final long INITIAL_RTT_NS = 333_000_000L;

  private WindowPacing() {}

  /** The pacing rate in bytes per second for {@code cwndBytes} over {@code srttNs}. */
  static long rateBytesPerSecond(long cwndBytes, long srttNs, boolean slowStart) {
    long rtt = srttNs > 0 ? srttNs : INITIAL_RTT_NS;
    double gain = slowStart ? SLOW_START_GAIN : AVOIDANCE_GAIN;
    return Math.max(1L, (long) (cwndBytes * gain * 1e9 / rtt));
  }

  /**
   * RFC 9002 §7.2: the initial window, {@code min(10 * max_datagram_size, max(14720, 2 *
   * max_datagram_size))}.
   */
  static long initialWindowBytes(int maxDatagramSize) {
    return Math.min(10L * maxDatagramSize, Math.max(14_720L, 2L * maxDatagramSize));
  }

  /** RFC 9002 §7.2: the minimum window, two datagrams. */
  static long minimumWindowBytes(int maxDatagramSize) {
    return 2L * maxDatagramSize;
  }

  static int checkDatagramSize(int maxDatagramSize) {
    if (maxDatagramSize < 1200 || maxDatagramSize > 65_527) {
      throw new IllegalArgumentException(
          "maxDatagramSize must be in 1200..65527, was " + maxDatagramSize);
    }
    return maxDatagramSize;
  }
}
