package dev.tern.transport.udp.packet;

import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * QUIC variable-length integers (RFC 9000 §16): 1, 2, 4 or 8 bytes, the two top bits of the first
 * byte giving the length, values 0..2^62-1. Stateless and allocation-free.
 */
public final class VarInt {
  /** The largest value a varint can hold, 2^62-1. */
  public static final long MAX = (1L << 62) - 1;

  /** Returned by {@link #read} when the buffer ends inside the integer. */
  public static final long MALFORMED = -1;

  private VarInt() {}

  /** The encoded size of {@code value} in bytes (1, 2, 4 or 8). */
  public static int size(long value) {
    if (value < 0 || value > MAX) {
      throw new IllegalArgumentException("varint value out of range: " + value);
    }
    if (value < 64) {
      return 1;
    }
    if (value < 16384) {
      return 2;
    }
    if (value < (1L << 30)) {
      return 4;
    }
    return 8;
  }

  /** Writes {@code value} at the buffer's position in the shortest encoding. */
  public static void write(ByteBuffer out, long value) {
    switch (size(value)) {
      case 1:
        out.put((byte) value);
        break;
      case 2:
        out.putShort((short) (value | 0x4000));
        break;
      case 4:
        out.putInt((int) (value | 0x8000_0000L));
        break;
      default:
        out.putLong(value | 0xC000_0000_0000_0000L);
        break;
    }
  }

  /**
   * Reads a varint at the buffer's position and advances past it; returns {@link #MALFORMED}
   * (position unchanged) if the buffer holds too few bytes.
   */
  public static long read(ByteBuffer in) {
    if (!in.hasRemaining()) {
      return MALFORMED;
    }
    int pos = in.position();
    int first = in.get(pos) & 0xff;
    int length = 1 << (first >>> 6);
    if (in.remaining() < length) {
      return MALFORMED;
    }
    long value = first & 0x3f;
    for (int i = 1; i < length; i++) {
      value = (value << 8) | (in.get(pos + i) & 0xff);
    }
    ((Buffer) in).position(pos + length);
    return value;
  }
}
