package dev.tern.transport.udp.congestion;

/**
 * A simple token-bucket pacer at the controller's {@link CongestionController#pacingRateBytesPerSecond}
 * rate with a burst of {@code burstPackets} datagrams, so the initial window and each increase
 * are spread over the RTT rather than sent in one burst (RFC 9002 §7.7).
 */
public final class TokenBucketPacer implements Pacer {
  private final long burstBytes;
  private long tokens;
  private long lastNs = Long.MIN_VALUE;

  /** A pacer allowing bursts of {@code burstPackets} datagrams of {@code datagramBytes}. */
  public TokenBucketPacer(int burstPackets, int datagramBytes) {
    if (burstPackets < 1) {
      throw new IllegalArgumentException("burstPackets must be >= 1: " + burstPackets);
    }
    this.burstBytes = (long) burstPackets * datagramBytes;
    this.tokens = burstBytes;
  }

  private void refill(long nowNs, CongestionController cc, CongestionController.RttView rtt) {
    if (lastNs == Long.MIN_VALUE) {
      lastNs = nowNs;
      return;
    }
    long elapsed = nowNs - lastNs;
    if (elapsed <= 0) {
      return;
    }
    long rate = Math.max(cc.pacingRateBytesPerSecond(rtt), 1);
    long add = (long) (elapsed * (double) rate / 1_000_000_000.0);
    if (add > 0) {
      tokens = Math.min(burstBytes, tokens + add);
      lastNs = nowNs;
    }
  }

  @Override
  public long nextSendTimeNs(long nowNs, int bytes, CongestionController cc,
      CongestionController.RttView rtt) {
    refill(nowNs, cc, rtt);
    if (tokens >= bytes) {
      return nowNs;
    }
    long rate = Math.max(cc.pacingRateBytesPerSecond(rtt), 1);
    long waitNs = (long) ((bytes - tokens) * 1_000_000_000.0 / rate) + 1;
    return nowNs + waitNs;
  }

  @Override
  public void onPacketSent(long nowNs, int bytes, CongestionController cc,
      CongestionController.RttView rtt) {
    refill(nowNs, cc, rtt);
    tokens -= bytes;
  }
}
