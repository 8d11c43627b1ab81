package dev.tern.transport.udp.crypto;

import dev.tern.transport.udp.packet.PacketProtection;
import java.nio.ByteBuffer;

/**
 * The AEAD keys of one packet-protection epoch (Initial, 0-RTT, Handshake or 1-RTT), both
 * directions, as {@link PacketProtection} orders their use (RFC 9001 §5): header protection
 * comes off before the packet number is read.
 *
 * <p>Receiving, the connection calls, for each packet:
 * <ol>
 *   <li>{@link #removeHeaderProtection} with the packet-number offset it parsed from the
 *       unprotected part of the header (long header: after the Length field; short header:
 *       after the Destination Connection ID), which unmasks the first byte and the packet number
 *       and returns the packet number's length;
 *   <li>it reads the truncated packet number and expands it (RFC 9000 Appendix A.3);
 *   <li>{@link #open} with the full packet number, which decrypts the payload in place.
 * </ol>
 * Sending: it writes the header (with the unprotected first byte and packet number) and the
 * payload, pads the payload to {@link #minPayloadBytes(int)}, then calls {@link #seal} and
 * {@link #applyHeaderProtection}.
 *
 * <p>Buffers are borrowed for the call and must be heap buffers ({@code hasArray()}); offsets are
 * absolute. Implementations allocate nothing per packet beyond what the provider's ciphers do,
 * and are not thread-safe: one per connection and epoch.
 */
public interface PacketKeys extends PacketProtection {

  /** Bytes {@link #seal} appends: the AEAD tag. */
  @Override
  default int overheadBytes() {
    return AeadAlgorithm.TAG_BYTES;
  }

  /** {@link #sampleMinPayloadBytes}: what header protection needs. */
  @Override
  default int minPayloadBytes(int pnLength) {
    return sampleMinPayloadBytes(pnLength);
  }

  /**
   * The smallest payload (frames, before the tag) that leaves enough ciphertext for the header
   * protection sample (RFC 9001 §5.4.2): the sample is 16 bytes starting 4 bytes after the packet
   * number's first byte.
   */
  static int sampleMinPayloadBytes(int packetNumberLength) {
    return Math.max(0, HeaderProtector.SAMPLE_OFFSET + HeaderMask.SAMPLE_BYTES
        - AeadAlgorithm.TAG_BYTES - packetNumberLength);
  }

  /**
   * Removes header protection in place (RFC 9001 §5.4).
   *
   * @param pnOffset absolute offset of the packet number's first byte
   * @param packetEnd absolute end of this packet (for a long header, as its Length says)
   * @return the packet number's length (1..4), or -1 if the packet is too short to carry a
   *     sample (the caller drops it)
   */
  @Override
  int removeHeaderProtection(ByteBuffer packet, int packetStart, int pnOffset, int packetEnd);

  /**
   * Authenticates and decrypts the payload in place, after {@link #removeHeaderProtection}.
   *
   * @param payloadOffset absolute offset of the first payload byte (after the packet number)
   * @param packetNumber the full packet number
   * @return the absolute end of the plaintext payload, -1 if the packet is not authentic (the
   *     caller drops it and counts it towards the integrity limit, {@link
   *     #integrityLimitPackets()}), or {@link #KEYS_DISCARDED} if the keys it needs are gone
   */
  @Override
  int open(ByteBuffer packet, int packetStart, int payloadOffset, int packetEnd,
      long packetNumber);

  /**
   * Encrypts the payload {@code [payloadOffset, out.position())} in place with the header as
   * associated data and appends the tag, advancing the position by {@link #overheadBytes()}.
   *
   * @return false, with nothing written, if these keys have sealed as many packets as their AEAD
   *     allows (RFC 9001 §6.6) and cannot be updated: the connection must then close with
   *     AEAD_LIMIT_REACHED (0x0f)
   */
  @Override
  boolean seal(ByteBuffer out, int packetStart, int payloadOffset, long packetNumber);

  /** Applies header protection to a packet that {@link #seal} has just sealed. */
  @Override
  void applyHeaderProtection(ByteBuffer packet, int packetStart, int pnOffset);

  /**
   * Packets received on these keys that failed authentication. The integrity limit applies to
   * the connection's sum over all its keys (RFC 9001 §6.6), which the connection keeps.
   */
  long failedOpens();

  /** The AEAD's integrity limit ({@link AeadAlgorithm#integrityLimitPackets()}). */
  @Override
  long integrityLimitPackets();

  /** The heap array behind {@code buf}, or an error naming the parameter. */
  static byte[] arrayOf(ByteBuffer buf, String name) {
    if (buf == null || !buf.hasArray() || buf.isReadOnly()) {
      throw new IllegalArgumentException(name + " must be a writable heap ByteBuffer, got "
          + (buf == null ? "null" : buf.isDirect() ? "a direct buffer" : "a read-only buffer"));
    }
    return buf.array();
  }
}
