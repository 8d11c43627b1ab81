package dev.tern.transport.udp.util;

import java.nio.ByteBuffer;

/**
 * Absolute bulk copies out of a {@link ByteBuffer}: the forms of {@code ByteBuffer.get(int,
 * byte[], int, int)} (Java 13) and {@code ByteBuffer.put(int, ByteBuffer, int, int)} (Java 16)
 * that Android API level 26 has. Like those, they move no position and check the ranges against
 * the buffers' limits ({@link IndexOutOfBoundsException}); they allocate nothing, so they can sit
 * on a per-packet path: a heap buffer is copied with {@link System#arraycopy}, any other byte by
 * byte.
 */
public final class Buffers {
  private Buffers() {}

  /** Copies {@code dst.length} bytes of {@code src} from index {@code index} into {@code dst}. */
  public static void get(ByteBuffer src, int index, byte[] dst) {
    get(src, index, dst, 0, dst.length);
  }

  /**
   * Copies {@code length} bytes of {@code src} from index {@code index} into {@code dst} at
   * {@code offset}.
   *
   * @throws IndexOutOfBoundsException if {@code [index, index + length)} is not within {@code
   *     src}'s limit or {@code [offset, offset + length)} not within {@code dst}
   */
  public static void get(ByteBuffer src, int index, byte[] dst, int offset, int length) {
    checkRange(index, length, src.limit());
    checkRange(offset, length, dst.length);
    if (src.hasArray()) {
      System.arraycopy(src.array(), src.arrayOffset() + index, dst, offset, length);
    } else {
      for (int i = 0; i < length; i++) {
        dst[offset + i] = src.get(index + i);
      }
    }
  }

  /**
   * Copies {@code length} bytes of {@code src} from index {@code srcIndex} into {@code dst} at
   * index {@code index}.
   *
   * @throws IndexOutOfBoundsException if either range is not within its buffer's limit
   * @throws java.nio.ReadOnlyBufferException if {@code dst} is read-only
   */
  public static void put(ByteBuffer dst, int index, ByteBuffer src, int srcIndex, int length) {
    checkRange(index, length, dst.limit());
    checkRange(srcIndex, length, src.limit());
    if (dst.hasArray()) {
      get(src, srcIndex, dst.array(), dst.arrayOffset() + index, length);
    } else {
      for (int i = 0; i < length; i++) {
        dst.put(index + i, src.get(srcIndex + i));
      }
    }
  }

  private static void checkRange(int from, int size, int length) {
    if ((from | size) < 0 || size > length - from) {
      throw new IndexOutOfBoundsException(
          "range [" + from + ", " + from + " + " + size + ") out of bounds for length " + length);
    }
  }
}
