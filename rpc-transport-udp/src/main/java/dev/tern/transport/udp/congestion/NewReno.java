package dev.tern.transport.udp.congestion;

/**
 * NewReno as RFC 9002 §7 and Appendix B describe it: slow start, congestion avoidance of one
 * datagram per window, halving on loss once per recovery period, the minimum window on persistent
 * congestion.
 */
public final class NewReno extends WindowController {
  /** RFC 9002 §7.3.2: kLossReductionFactor. */
  private static final double LOSS_REDUCTION = 0.5;

  private long avoidanceAckedBytes;

  /** A controller for datagrams of up to {@code maxDatagramSize} bytes. */
  public NewReno(int maxDatagramSize) {
    super(maxDatagramSize);
  }

  @Override
  public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {
    use.onPacketSent(nowNs, bytesInFlight, cwndBytes, maxDatagramSize, inSlowStart());
  }

  @Override
  public void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      RttView rtt, long bytesInFlight) {
    // RFC 9002 §7.3.2: no increase for packets sent before recovery started.
    if (sentTimeNs <= recoveryStartNs) {
      return;
    }
    // RFC 9002 §7.8: do not grow a window the sender does not use.
    if (!use.windowWasUsed(sentTimeNs, rtt.smoothedRttNs())) {
      return;
    }
    if (cwndBytes < ssthreshBytes) {
      cwndBytes += bytes;
      return;
    }
    // RFC 9002 §7.3.3: one datagram per window acknowledged.
    avoidanceAckedBytes += bytes;
    if (avoidanceAckedBytes >= cwndBytes) {
      avoidanceAckedBytes -= cwndBytes;
      cwndBytes += maxDatagramSize;
    }
  }

  @Override
  public void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      long bytesInFlight) {
    if (sentTimeNs <= recoveryStartNs) {
      return;
    }
    // RFC 9002 §7.3.2: enter recovery, halve the window once per round trip.
    saveForUndo();
    recoveryStartNs = nowNs;
    ssthreshBytes = Math.max((long) (cwndBytes * LOSS_REDUCTION),
        WindowPacing.minimumWindowBytes(maxDatagramSize));
    cwndBytes = ssthreshBytes;
    avoidanceAckedBytes = 0;
  }

  @Override
  public void onPersistentCongestion(long nowNs) {
    // RFC 9002 §7.6.2: collapse to the minimum window.
    forgetUndo();
    cwndBytes = WindowPacing.minimumWindowBytes(maxDatagramSize);
    recoveryStartNs = nowNs;
    avoidanceAckedBytes = 0;
  }

  @Override
  public String name() {
    return "NewReno";
  }
}
