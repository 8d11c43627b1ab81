package dev.tern.transport.udp.packet;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Version 1's plaintext protection (docs/protocol.md §5): no encryption and no authentication,
 * only a CRC-32C trailer over header and payload so that corrupted packets are dropped. It stands
 * in the slot an AEAD takes later. Not thread-safe: one instance per connection.
 */
public final class PlaintextProtection implements PacketProtection {
  /** The trailer length. */
  public static final int TRAILER_BYTES = 4;

  private final CRC32C crc = new CRC32C();

  @Override
  public int overheadBytes() {
    return TRAILER_BYTES;
  }

  @Override
  public void seal(ByteBuffer out, int packetStart, int payloadOffset, long packetNumber) {
    int end = out.position();
    out.putInt((int) checksum(out, packetStart, end));
  }

  @Override
  public int open(ByteBuffer buf, int packetStart, int payloadOffset, int packetEnd,
      long packetNumber) {
    int payloadEnd = packetEnd - TRAILER_BYTES;
    if (payloadEnd < payloadOffset) {
      return -1;
    }
    int expected = buf.getInt(payloadEnd);
    return (int) checksum(buf, packetStart, payloadEnd) == expected ? payloadEnd : -1;
  }

  private long checksum(ByteBuffer buf, int from, int to) {
    int savedPosition = buf.position();
    int savedLimit = buf.limit();
    crc.reset();
    buf.limit(to).position(from);
    crc.update(buf);
    buf.limit(savedLimit).position(savedPosition);
    return crc.getValue();
  }
}
