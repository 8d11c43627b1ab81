package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.congestion.CongestionController;
import dev.tern.transport.udp.congestion.Pacer;
import dev.tern.transport.udp.path.MtuDiscovery;

/**
 * Sits between loss recovery and the congestion controller: tells {@link MtuDiscovery} about every
 * acknowledged and lost packet, keeps lost PMTU probes from the controller (RFC 8899 §4.4: a probe
 * lost for its size is no congestion signal), and likewise losses of packets larger than the size
 * in use (sent before a black-hole fall-back), and passes a changed datagram size on to the
 * controller and the pacer.
 */
final class PathMtuController implements CongestionController {
  private final CongestionController cc;
  private final MtuDiscovery mtu;
  private final Pacer pacer;
  private int datagramBytes;

  PathMtuController(CongestionController cc, MtuDiscovery mtu, Pacer pacer) {
    this.cc = cc;
    this.mtu = mtu;
    this.pacer = pacer;
    this.datagramBytes = mtu.maxDatagramSize();
  }

  /** Propagates a datagram size change, if there was one. */
  void checkSize() {
    int now = mtu.maxDatagramSize();
    if (now != datagramBytes) {
      datagramBytes = now;
      cc.onMaxDatagramSizeChanged(now);
      pacer.setMaxDatagramSize(now);
    }
  }

  @Override
  public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {
    cc.onPacketSent(nowNs, packetNumber, bytes, bytesInFlight);
  }

  @Override
  public void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs, RttView rtt,
      long bytesInFlight) {
    mtu.onPacketAcked(packetNumber, bytes, nowNs);
    cc.onPacketAcked(nowNs, packetNumber, bytes, sentTimeNs, rtt, bytesInFlight);
  }

  @Override
  public void onAckProcessed(long nowNs, long bytesInFlight) {
    cc.onAckProcessed(nowNs, bytesInFlight);
    checkSize();
  }

  @Override
  public void onPacketDiscarded(long packetNumber) {
    cc.onPacketDiscarded(packetNumber);
  }

  @Override
  public void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      long bytesInFlight) {
    boolean probe = mtu.onPacketLost(packetNumber, bytes, nowNs);
    // A packet larger than the size now in use was lost to the black hole that made discovery
    // fall back, not to congestion: the controller must not cut its window for it.
    if (!probe && bytes <= mtu.maxDatagramSize()) {
      cc.onPacketLost(nowNs, packetNumber, bytes, sentTimeNs, bytesInFlight);
    } else {
      cc.onPacketDiscarded(packetNumber);
    }
    checkSize();
  }

  @Override
  public void onSpuriousCongestion(long nowNs, long eventStartNs) {
    cc.onSpuriousCongestion(nowNs, eventStartNs);
  }

  @Override
  public void onPersistentCongestion(long nowNs) {
    cc.onPersistentCongestion(nowNs);
  }

  @Override
  public void onApplicationLimited(long nowNs, long bytesInFlight) {
    cc.onApplicationLimited(nowNs, bytesInFlight);
  }

  @Override
  public boolean canSend(long bytesInFlight, int bytes) {
    return cc.canSend(bytesInFlight, bytes);
  }

  @Override
  public long congestionWindowBytes() {
    return cc.congestionWindowBytes();
  }

  @Override
  public long pacingRateBytesPerSecond(RttView rtt) {
    return cc.pacingRateBytesPerSecond(rtt);
  }

  @Override
  public boolean inSlowStart() {
    return cc.inSlowStart();
  }

  @Override
  public String name() {
    return cc.name();
  }
}
