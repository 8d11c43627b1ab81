package dev.tern.transport.udp.congestion;

/**
 * Decides when the next packet may leave. The connection asks {@link #nextSendTimeNs} before each
 * packet and reports each sent packet with {@link #onPacketSent}.
 */
public interface Pacer {
  /**
   * The earliest time the next packet of {@code bytes} may be sent; {@code nowNs} or earlier means
   * now.
   */
  long nextSendTimeNs(long nowNs, int bytes, CongestionController cc,
      CongestionController.RttView rtt);

  /** A packet of {@code bytes} was sent at {@code nowNs}. */
  void onPacketSent(long nowNs, int bytes, CongestionController cc,
      CongestionController.RttView rtt);
}
