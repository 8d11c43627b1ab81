package dev.tern.transport.udp.util;

import java.nio.ByteBuffer;

/**
 * SipHash-2-4, the keyed 64-bit pseudorandom function of Aumasson and Bernstein ("SipHash: a
 * fast short-input PRF", 2012), written from the paper's description: a 128-bit key, two
 * compression rounds per 8-byte message word, four finalization rounds. Without the key an
 * attacker cannot choose inputs that collide in a hash table, which is what it is for here:
 * connection IDs are chosen by peers. Immutable once keyed; hashing allocates nothing.
 */
public final class SipHash {
  private final long k0;
  private final long k1;

  /**
   * A hash keyed by {@code key0} and {@code key1}: the key's first and second 8 bytes read as
   * little-endian words (the paper's k0 and k1).
   */
  public SipHash(long key0, long key1) {
    this.k0 = key0;
    this.k1 = key1;
  }

  /** A hash keyed by 16 bytes, as the paper writes keys. */
  public static SipHash ofKey(byte[] key) {
    if (key.length != 16) {
      throw new IllegalArgumentException("SipHash key must be 16 bytes, was " + key.length);
    }
    ByteBuffer b = ByteBuffer.wrap(key);
    return new SipHash(wordAt(b, 0, 8), wordAt(b, 8, 8));
  }

  /** SipHash-2-4 of the whole array. */
  public long hash(byte[] message) {
    return hash(ByteBuffer.wrap(message), 0, message.length);
  }

  /**
   * SipHash-2-4 of {@code length} bytes of {@code buf} from absolute {@code offset}, which must lie
   * within the buffer's limit (its position is neither read nor moved).
   */
  public long hash(ByteBuffer buf, int offset, int length) {
    long v0 = k0 ^ 0x736f6d6570736575L;
    long v1 = k1 ^ 0x646f72616e646f6dL;
    long v2 = k0 ^ 0x6c7967656e657261L;
    long v3 = k1 ^ 0x7465646279746573L;
    int end = offset + length;
    int fullEnd = offset + (length & ~7);
    for (int p = offset; p <= end; p += 8) {
      long m;
      if (p < fullEnd) {
        m = wordAt(buf, p, 8);
      } else {
        // The last word: the remaining 0..7 bytes and the length's low byte at the top.
        m = wordAt(buf, p, end - p) | ((long) (length & 0xff) << 56);
      }
      v3 ^= m;
      for (int r = 0; r < 2; r++) {
        v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
        v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
        v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
        v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
      }
      v0 ^= m;
      if (p >= fullEnd) {
        break;
      }
    }
    v2 ^= 0xff;
    for (int r = 0; r < 4; r++) {
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    }
    return v0 ^ v1 ^ v2 ^ v3;
  }

  /** {@code n} (0..8) bytes at absolute {@code p} as a little-endian word. */
  private static long wordAt(ByteBuffer buf, int p, int n) {
    long w = 0;
    for (int i = n - 1; i >= 0; i--) {
      w = (w << 8) | (buf.get(p + i) & 0xffL);
    }
    return w;
  }
}
