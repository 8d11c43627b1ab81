package dev.tern.transport.udp.packet;

import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * Version 1's plaintext protection (docs/protocol.md §5): no encryption, no authentication and no
 * header protection, only a CRC-32C trailer over header and payload so that corrupted packets are
 * dropped. The encrypted version (docs/protocol.md §9) replaces it with AEAD packet keys; version
 * 1 is no longer offered or accepted by default and stays for tests of version negotiation and of
 * the wire itself. Not thread-safe: one instance per connection.
 */
public final class PlaintextProtection implements PacketProtection {
  /** The trailer length. */
  public static final int TRAILER_BYTES = 4;

  @Override
  public int overheadBytes() {
    return TRAILER_BYTES;
  }

  @Override
  public int removeHeaderProtection(ByteBuffer buf, int packetStart, int pnOffset,
      int packetEnd) {
    int pnLength = (buf.get(packetStart) & 0x03) + 1; // nothing is masked in version 1
    return pnOffset + pnLength <= packetEnd ? pnLength : -1;
  }

  @Override
  public boolean seal(ByteBuffer out, int packetStart, int payloadOffset, long packetNumber) {
    int end = out.position();
    out.putInt(checksum(out, packetStart, end));
    return true;
  }

  @Override
  public void applyHeaderProtection(ByteBuffer buf, int packetStart, int pnOffset) {
    // Version 1 has no header protection.
  }

  @Override
  public int open(ByteBuffer buf, int packetStart, int payloadOffset, int packetEnd,
      long packetNumber) {
    int payloadEnd = packetEnd - TRAILER_BYTES;
    if (payloadEnd < payloadOffset) {
      return -1;
    }
    int expected = buf.getInt(payloadEnd);
    return checksum(buf, packetStart, payloadEnd) == expected ? payloadEnd : -1;
  }

  /** The CRC-32C of {@code buf}'s bytes {@code [from, to)}; position and limit are kept. */
  static int checksum(ByteBuffer buf, int from, int to) {
    int savedPosition = buf.position();
    int savedLimit = buf.limit();
    ((Buffer) buf).limit(to).position(from);
    int crc = Crc32c.of(buf);
    ((Buffer) buf).limit(savedLimit).position(savedPosition);
    return crc;
  }
}
