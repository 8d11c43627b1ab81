package dev.tern.transport.udp.congestion;

import java.util.Random;

/**
 * A connection's congestion controller across changes of path (RFC 9000 §9.4): when the peer's
 * new address is confirmed, {@link #onNewPath} starts a fresh controller of the same algorithm
 * from its initial values (RFC 9002 §B.3: initial window, no slow-start threshold, no recovery
 * period), as the previous path's window and rate say nothing about the new one. Packets sent
 * before the change (numbered below {@link #onNewPath}'s sequence) went over the previous path:
 * their acknowledgements and losses are not the new path's and are not reported to the new
 * controller, and neither is persistent congestion until a packet sent on the new path has been
 * acknowledged (the previous path's packets, sent to an address the peer left, are lost as a
 * body). Bytes in flight stay shared: the new window is not used twice over.
 */
public final class PathCongestion implements CongestionController {
  private final CongestionControl algorithm;
  private final Random random;
  private int maxDatagramSize;
  private CongestionController current;
  private long firstSequence;
  private boolean newPathAcked = true;
  private long resets;

  /**
   * A controller running {@code algorithm}; {@code random} seeds each controller (BBR's probe
   * spacing), one draw now and one per path change.
   */
  public PathCongestion(CongestionControl algorithm, int maxDatagramSize, Random random) {
    this.algorithm = algorithm;
    this.random = random;
    this.maxDatagramSize = maxDatagramSize;
    this.current = CongestionControllers.create(algorithm, maxDatagramSize, random.nextLong());
  }

  /**
   * The peer's new address is confirmed: a fresh controller from here; {@code nextSequence} is
   * the sending sequence the first packet on the new path will get.
   */
  public void onNewPath(long nextSequence) {
    current = CongestionControllers.create(algorithm, maxDatagramSize, random.nextLong());
    firstSequence = nextSequence;
    newPathAcked = false;
    resets++;
  }

  /** How often the controller was reset for a new path. */
  public long resets() {
    return resets;
  }

  /** The controller in force (a fresh one after each {@link #onNewPath}). */
  public CongestionController current() {
    return current;
  }

  @Override
  public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {
    current.onPacketSent(nowNs, packetNumber, bytes, bytesInFlight);
  }

  @Override
  public void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      RttView rtt, long bytesInFlight) {
    if (packetNumber < firstSequence) {
      return;
    }
    newPathAcked = true;
    current.onPacketAcked(nowNs, packetNumber, bytes, sentTimeNs, rtt, bytesInFlight);
  }

  @Override
  public void onAckProcessed(long nowNs, long bytesInFlight) {
    current.onAckProcessed(nowNs, bytesInFlight);
  }

  @Override
  public void onPacketDiscarded(long packetNumber) {
    if (packetNumber >= firstSequence) {
      current.onPacketDiscarded(packetNumber);
    }
  }

  @Override
  public void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      long bytesInFlight) {
    if (packetNumber >= firstSequence) {
      current.onPacketLost(nowNs, packetNumber, bytes, sentTimeNs, bytesInFlight);
    }
  }

  @Override
  public void onSpuriousCongestion(long nowNs, long eventStartNs) {
    current.onSpuriousCongestion(nowNs, eventStartNs);
  }

  @Override
  public void onPersistentCongestion(long nowNs) {
    if (newPathAcked) {
      current.onPersistentCongestion(nowNs);
    }
  }

  @Override
  public void onApplicationLimited(long nowNs, long bytesInFlight) {
    current.onApplicationLimited(nowNs, bytesInFlight);
  }

  @Override
  public void onMaxDatagramSizeChanged(int bytes) {
    maxDatagramSize = bytes;
    current.onMaxDatagramSizeChanged(bytes);
  }

  @Override
  public boolean canSend(long bytesInFlight, int bytes) {
    return current.canSend(bytesInFlight, bytes);
  }

  @Override
  public long congestionWindowBytes() {
    return current.congestionWindowBytes();
  }

  @Override
  public long backgroundWindowBytes() {
    return current.backgroundWindowBytes();
  }

  @Override
  public long pacingRateBytesPerSecond(RttView rtt) {
    return current.pacingRateBytesPerSecond(rtt);
  }

  @Override
  public boolean inSlowStart() {
    return current.inSlowStart();
  }

  @Override
  public String name() {
    return current.name();
  }
}
