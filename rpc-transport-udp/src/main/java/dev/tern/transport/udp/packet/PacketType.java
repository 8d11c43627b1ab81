package dev.tern.transport.udp.packet;

/** The packet types of docs/protocol.md §2. */
public enum PacketType {
  /** Long header, type 0: the handshake. */
  INITIAL,
  /** Long header, type 1: reserved for early data. */
  ZERO_RTT,
  /** Long header, type 2: reserved for the authenticated handshake. */
  HANDSHAKE,
  /** Long header, type 3: reserved. */
  RETRY,
  /** Long header with version 0. */
  VERSION_NEGOTIATION,
  /** Short header. */
  ONE_RTT;

  private static final PacketType[] LONG = {INITIAL, ZERO_RTT, HANDSHAKE, RETRY};

  /** The type for a long header's two type bits. */
  static PacketType ofLongTypeBits(int bits) {
    return LONG[bits & 3];
  }
}
