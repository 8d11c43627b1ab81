package dev.tern.transport.udp.congestion;

/**
 * A reference sender for experiments: a fixed pacing rate and no window, so the queueing a link
 * imposes by itself (trace outages) can be told from the queueing a controller causes.
 */
final class FixedRate implements CongestionController {
  private final long rateBytesPerSecond;

  FixedRate(long rateBytesPerSecond) {
    this.rateBytesPerSecond = rateBytesPerSecond;
  }

  @Override
  public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {}

  @Override
  public void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      RttView rtt, long bytesInFlight) {}

  @Override
  public void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs,
      long bytesInFlight) {}

  @Override
  public void onPersistentCongestion(long nowNs) {}

  @Override
  public long congestionWindowBytes() {
    return 1L << 40;
  }

  @Override
  public long pacingRateBytesPerSecond(RttView rtt) {
    return rateBytesPerSecond;
  }

  @Override
  public boolean inSlowStart() {
    return false;
  }

  @Override
  public String name() {
    return "fixed";
  }
}
