package dev.tern.transport.udp.sim;

import java.nio.ByteBuffer;

/** One direction of the simulated network: decides each datagram's fate. */
public interface Channel {
  /**
   * Offers a datagram sent at {@code nowNs} (borrowed: read, not kept).
   *
   * @param deliverAtNs receives the delivery time of each copy
   * @param corrupt receives whether each copy arrives corrupted
   * @return the number of copies delivered (0 = dropped, 1, or 2 = duplicated)
   */
  int transmit(long nowNs, ByteBuffer datagram, long[] deliverAtNs, boolean[] corrupt);
}
