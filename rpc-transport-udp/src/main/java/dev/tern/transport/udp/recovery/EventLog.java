package dev.tern.transport.udp.recovery;

/**
 * What a connection reports to an event log (the driver's qlog file, docs/protocol.md §10.9): the
 * packets it sends, receives and declares lost, its recovery state after each acknowledgement,
 * and its path changes. Called on the connection's thread with primitives only, so that a
 * connection without a log ({@link #NONE}, the default) pays a call that does nothing and
 * allocates nothing per packet.
 */
public interface EventLog {
  /** Logs nothing. */
  EventLog NONE = new EventLog() { };

  /**
   * A packet left (RFC 9002 §A.5's OnPacketSent).
   *
   * @param space its packet-number space (0 Initial, 1 Handshake, 2 application data)
   * @param packetNumber its packet number
   * @param bytes its size in bytes
   * @param ackEliciting whether it asks for an acknowledgement
   */
  default void packetSent(long nowNs, int space, long packetNumber, int bytes,
      boolean ackEliciting) {}

  /** A packet of the peer was authenticated and processed. */
  default void packetReceived(long nowNs, int space, long packetNumber, int bytes) {}

  /** An ack-eliciting or in-flight packet was declared lost (RFC 9002 §6.1). */
  default void packetLost(long nowNs, int space, long packetNumber, int bytes) {}

  /**
   * The recovery state after an acknowledgement was processed (RFC 9002 §A.7).
   *
   * @param smoothedRttNs the smoothed RTT
   * @param minRttNs the minimum RTT (Long.MAX_VALUE before a sample)
   * @param latestRttNs the latest RTT sample
   * @param congestionWindow the congestion window, bytes
   * @param bytesInFlight the bytes in flight
   */
  default void metricsUpdated(long nowNs, long smoothedRttNs, long minRttNs, long latestRttNs,
      long congestionWindow, long bytesInFlight) {}

  /**
   * The connection now sends on another path (RFC 9000 §9.3), as the driver numbers paths.
   *
   * @param pathId the new path
   * @param validated whether the peer's address on it is validated
   */
  default void pathChanged(long nowNs, long pathId, boolean validated) {}
}
