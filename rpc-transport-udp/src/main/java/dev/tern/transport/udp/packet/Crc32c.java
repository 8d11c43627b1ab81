package dev.tern.transport.udp.packet;

import java.nio.ByteBuffer;

/**
 * CRC-32C (Castagnoli: RFC 3720 §12.1, Appendix B.4), the same values as the JDK's {@code
 * java.util.zip.CRC32C}, which is Java 9 and missing from Android API level 26. A byte at a time
 * through a 256-entry table of the reflected polynomial 0x82F63B78; allocation-free, so it can
 * check every packet (BouncyCastle has no CRC-32C, and Guava's allocates a hasher per call).
 */
final class Crc32c {
  private static final int[] TABLE = new int[256];

  static {
    for (int n = 0; n < 256; n++) {
      int c = n;
      for (int bit = 0; bit < 8; bit++) {
        c = (c & 1) != 0 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
      }
      TABLE[n] = c;
    }
  }

  private Crc32c() {}

  /** The CRC-32C of {@code buf}'s bytes from its position to its limit; nothing moves. */
  static int of(ByteBuffer buf) {
    int crc = ~0;
    int from = buf.position();
    int to = buf.limit();
    if (buf.hasArray()) {
      byte[] a = buf.array();
      for (int i = buf.arrayOffset() + from, end = buf.arrayOffset() + to; i < end; i++) {
        crc = (crc >>> 8) ^ TABLE[(crc ^ a[i]) & 0xff];
      }
    } else {
      for (int i = from; i < to; i++) {
        crc = (crc >>> 8) ^ TABLE[(crc ^ buf.get(i)) & 0xff];
      }
    }
    return ~crc;
  }
}
