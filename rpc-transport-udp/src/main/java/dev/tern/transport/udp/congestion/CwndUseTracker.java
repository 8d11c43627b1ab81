package dev.tern.transport.udp.congestion;

/**
 * Tells whether the sender has been filling the congestion window, so a window-based controller
 * does not grow a window it is not using (RFC 9002 §7.8, RFC 7661 §4, RFC 9438 §5.8). A send that
 * brings the flight up to the window (less a few datagrams of slack, since paced sends lag it; in
 * slow start, half the window, RFC 7661 §4.1) marks the window as used; an acknowledgement counts
 * as window-limited if such a send happened within one round trip before its packet left.
 */
final class CwndUseTracker {
  /** Slack under the window that still counts as using it: paced sends lag the window slightly. */
  private static final int SLACK_DATAGRAMS = 3;

  private long windowFullAtNs = Long.MIN_VALUE;

  /** A packet was sent; {@code bytesInFlight} includes it. */
  void onPacketSent(long nowNs, long bytesInFlight, long cwndBytes, int maxDatagramSize,
      boolean slowStart) {
    boolean full = slowStart
        ? bytesInFlight * 2 >= cwndBytes
        : bytesInFlight + (long) SLACK_DATAGRAMS * maxDatagramSize >= cwndBytes;
    if (full) {
      windowFullAtNs = nowNs;
    }
  }

  /** Whether the packet sent at {@code sentTimeNs} left while the window was in use. */
  boolean windowWasUsed(long sentTimeNs, long srttNs) {
    return windowFullAtNs != Long.MIN_VALUE && windowFullAtNs >= sentTimeNs - srttNs;
  }
}
