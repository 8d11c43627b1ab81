package dev.tern.transport.udp.packet;

import java.nio.ByteBuffer;

/**
 * The packet-protection layer of one epoch (docs/protocol.md §5, §10), between packetisation and
 * framing, in the order RFC 9001 §5 needs it: header protection comes off before the packet
 * number is read, because the packet number is masked.
 *
 * <p>Receiving: the caller parses the unprotected part of the header (which gives the packet
 * number's offset and the packet's end), calls {@link #removeHeaderProtection}, reads and expands
 * the packet number (RFC 9000 Appendix A.3), then {@link #open}s the payload. Sending: it writes
 * the header with the unprotected first byte and packet number, the frames, pads the payload to
 * {@link #minPayloadBytes}, then calls {@link #seal} and {@link #applyHeaderProtection}. Recovery
 * and streams never see protection.
 *
 * <p>Buffers are borrowed for the call; offsets are absolute. Implementations run on the
 * connection's thread.
 */
public interface PacketProtection {

  /**
   * What {@link #open} returns for a packet it did not try because the keys it needs are gone
   * (RFC 9001 §6.1: a 1-RTT packet of the previous key phase after those read keys were
   * discarded). It is a late packet, not a forgery: it does not count towards the integrity
   * limit.
   */
  int KEYS_DISCARDED = -2;

  /** Bytes {@link #seal} appends (the AEAD tag, or the plaintext checksum). */
  int overheadBytes();

  /**
   * The smallest payload (frames, before the trailer) a packet with a packet number of
   * {@code pnLength} bytes must carry (RFC 9001 §5.4.2: enough ciphertext for the header
   * protection sample); 0 without header protection.
   */
  default int minPayloadBytes(int pnLength) {
    return 0;
  }

  /**
   * Removes header protection in place (RFC 9001 §5.4) and returns the packet number's length.
   *
   * @param pnOffset absolute offset of the packet number's first byte
   * @param packetEnd absolute end of this packet (for a long header, as its Length says)
   * @return the packet number's length (1..4), or -1 if the packet is too short (the caller drops
   *     and counts it)
   */
  int removeHeaderProtection(ByteBuffer buf, int packetStart, int pnOffset, int packetEnd);

  /**
   * Checks (and with an AEAD, decrypts in place) the packet occupying
   * {@code [packetStart, packetEnd)}, after {@link #removeHeaderProtection}.
   *
   * @param payloadOffset absolute offset of the first payload byte (after the packet number)
   * @param packetNumber the full packet number (an AEAD nonce input)
   * @return the absolute end of the plaintext payload, -1 if the packet is not authentic, or
   *     {@link #KEYS_DISCARDED} if its keys are gone (the caller drops and counts either)
   */
  int open(ByteBuffer buf, int packetStart, int payloadOffset, int packetEnd, long packetNumber);

  /**
   * Protects the payload {@code [payloadOffset, out.position())} in place, with the header as
   * associated data, and appends the trailer, advancing the position by {@link #overheadBytes()}.
   *
   * @param packetNumber the full packet number (an AEAD nonce input)
   * @return false, with nothing written, if the keys may seal no more packets (RFC 9001 §6.6):
   *     the connection must close with AEAD_LIMIT_REACHED
   */
  boolean seal(ByteBuffer out, int packetStart, int payloadOffset, long packetNumber);

  /** Applies header protection (RFC 9001 §5.4.1) to a packet {@link #seal} has just sealed. */
  void applyHeaderProtection(ByteBuffer buf, int packetStart, int pnOffset);

  /**
   * The integrity limit of the AEAD behind these keys (RFC 9001 §6.6): the connection counts
   * packets that fail authentication across all its keys and closes with AEAD_LIMIT_REACHED once
   * the count exceeds this. {@code Long.MAX_VALUE} for a checksum, which authenticates nothing:
   * a packet failing it is corruption, not a forgery, and is not counted.
   */
  default long integrityLimitPackets() {
    return Long.MAX_VALUE;
  }
}
