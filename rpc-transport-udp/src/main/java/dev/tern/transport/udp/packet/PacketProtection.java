package dev.tern.transport.udp.packet;

import java.nio.ByteBuffer;

/**
 * The packet-protection layer (docs/protocol.md §5), between packetisation and framing. A sender
 * builds header and payload, then {@link #seal}s the packet (appending {@link #overheadBytes()}
 * and, with an AEAD, encrypting the payload in place); a receiver {@link #open}s it before
 * reading any frame. Recovery and streams never see protection.
 *
 * <p>Implementations run on the connection's thread and must not allocate per packet.
 */
public interface PacketProtection {

  /** Bytes {@link #seal} appends (the AEAD tag, or the plaintext checksum). */
  int overheadBytes();

  /**
   * Protects the packet occupying {@code [packetStart, out.position())} in place and appends the
   * trailer, advancing the position by {@link #overheadBytes()}.
   *
   * @param payloadOffset absolute offset of the first payload byte (end of the header)
   * @param packetNumber the full packet number (an AEAD nonce input)
   */
  void seal(ByteBuffer out, int packetStart, int payloadOffset, long packetNumber);

  /**
   * Checks (and with an AEAD, decrypts in place) the packet occupying
   * {@code [packetStart, packetEnd)}.
   *
   * @return the absolute end of the plaintext payload, or -1 if the packet is not authentic (the
   *     caller drops and counts it)
   */
  int open(ByteBuffer buf, int packetStart, int payloadOffset, int packetEnd, long packetNumber);
}
