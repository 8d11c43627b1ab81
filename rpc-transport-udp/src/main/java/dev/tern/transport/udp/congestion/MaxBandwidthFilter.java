package dev.tern.transport.udp.congestion;

/**
 * BBR's windowed maximum of delivery-rate samples over the last two bandwidth-probing cycles
 * (draft-ietf-ccwg-bbr §4.5.2.4, MaxBwFilterLen = 2): long enough to remember the last probe's
 * result, short enough to forget a bandwidth the path no longer has.
 */
final class MaxBandwidthFilter {
  private long current;
  private long previous;

  /** A delivery-rate sample, bytes per second. */
  void update(long bytesPerSecond) {
    if (bytesPerSecond > current) {
      current = bytesPerSecond;
    }
  }

  /** A new probing cycle starts: the oldest cycle's samples leave the window. */
  void advance() {
    previous = current;
    current = 0;
  }

  /** The maximum over the window, bytes per second; 0 before any sample. */
  long maxBytesPerSecond() {
    return Math.max(current, previous);
  }
}
