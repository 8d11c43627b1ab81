package dev.tern.transport.udp.congestion;

/**
 * Tells whether the flight actually filled the congestion window since the last ACK, so a
 * window-based controller does not grow a window the sender is not using (RFC 9002 §7.8,
 * RFC 7661 §4, RFC 9438 §5.8). Pacing keeps the flight a little below the window, so a few
 * datagrams of slack count as full.
 */
final class CwndUseTracker {
  /** Slack under the window that still counts as using it: paced sends lag the window slightly. */
  private static final int SLACK_DATAGRAMS = 3;

  private long maxInFlightBytes;

  /** A packet was sent; {@code bytesInFlight} includes it. */
  void onPacketSent(long bytesInFlight) {
    if (bytesInFlight > maxInFlightBytes) {
      maxInFlightBytes = bytesInFlight;
    }
  }

  /** Whether the window was used since the last ACK frame. */
  boolean windowWasUsed(long cwndBytes, int maxDatagramSize, boolean slowStart) {
    if (slowStart) {
      // RFC 7661 §4.1 lets slow start grow while at least half the window is in use.
      return maxInFlightBytes * 2 >= cwndBytes;
    }
    return maxInFlightBytes + (long) SLACK_DATAGRAMS * maxDatagramSize >= cwndBytes;
  }

  /** An ACK frame was processed: measure the next interval from what is in flight now. */
  void onAckProcessed(long bytesInFlight) {
    maxInFlightBytes = bytesInFlight;
  }
}
