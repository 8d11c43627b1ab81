package dev.tern.transport.udp.congestion;

/**
 * What the loss-based, window-based controllers ({@link NewReno}, {@link Cubic}) share: the
 * congestion window and slow-start threshold in bytes, the start of the recovery period (RFC 9002
 * §7.3.2), whether the window is being used (§7.8), and pacing derived from the window (§7.7).
 * Each subclass supplies only how the window grows and shrinks.
 */
abstract class WindowController implements CongestionController {
  /** Tracks whether the sender fills its window (RFC 9002 §7.8). */
  final CwndUseTracker use = new CwndUseTracker();
  int maxDatagramSize;
  long cwndBytes;
  long ssthreshBytes = Long.MAX_VALUE;
  /** Send time at which the current recovery period began (RFC 9002 §7.3.2), or none. */
  long recoveryStartNs = Long.MIN_VALUE;

  /** The window, threshold and recovery start before the current congestion event, or 0. */
  private long undoCwndBytes;
  private long undoSsthreshBytes;
  private long undoRecoveryStartNs;

  WindowController(int maxDatagramSize) {
    this.maxDatagramSize = WindowPacing.checkDatagramSize(maxDatagramSize);
    this.cwndBytes = WindowPacing.initialWindowBytes(maxDatagramSize);
  }

  @Override
  public void onMaxDatagramSizeChanged(int bytes) {
    maxDatagramSize = WindowPacing.checkDatagramSize(bytes);
    cwndBytes = Math.max(cwndBytes, WindowPacing.minimumWindowBytes(bytes));
  }

  /** Saves what a congestion event is about to reduce (RFC 9438 §4.9), as it begins. */
  void saveForUndo() {
    undoCwndBytes = cwndBytes;
    undoSsthreshBytes = ssthreshBytes;
    undoRecoveryStartNs = recoveryStartNs;
  }

  /** Forgets the saved state: persistent congestion is never undone. */
  void forgetUndo() {
    undoCwndBytes = 0;
  }

  /**
   * Whether the recovery period in force began at {@code eventStartNs} with state saved for undo.
   */
  boolean canUndo(long eventStartNs) {
    return undoCwndBytes != 0 && recoveryStartNs == eventStartNs;
  }

  /** RFC 9438 §4.9: restores the state saved when the spurious event began. */
  @Override
  public void onSpuriousCongestion(long nowNs, long eventStartNs) {
    if (!canUndo(eventStartNs)) {
      return;
    }
    cwndBytes = Math.max(cwndBytes, undoCwndBytes);
    ssthreshBytes = undoSsthreshBytes;
    recoveryStartNs = undoRecoveryStartNs;
    undoCwndBytes = 0;
  }

  @Override
  public final long congestionWindowBytes() {
    return cwndBytes;
  }

  @Override
  public final long pacingRateBytesPerSecond(RttView rtt) {
    return WindowPacing.rateBytesPerSecond(cwndBytes, rtt.smoothedRttNs(), inSlowStart());
  }

  @Override
  public final boolean inSlowStart() {
    return cwndBytes < ssthreshBytes;
  }
}
