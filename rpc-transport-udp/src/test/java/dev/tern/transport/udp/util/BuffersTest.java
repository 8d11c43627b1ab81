package dev.tern.transport.udp.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The absolute bulk copies do what the JDK's {@code ByteBuffer.get(int, byte[], int, int)} and
 * {@code put(int, ByteBuffer, int, int)} do (the tests run on a JDK that has both), on heap,
 * sliced, direct and read-only buffers.
 */
class BuffersTest {
  private static final int SIZE = 64;

  private static byte[] bytes(int seed) {
    byte[] b = new byte[SIZE];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** The same 64 bytes in every kind of buffer, position 5, limit 60. */
  private static List<ByteBuffer> kinds(byte[] content) {
    byte[] padded = new byte[SIZE + 7];
    System.arraycopy(content, 0, padded, 3, SIZE);
    ByteBuffer sliced = ByteBuffer.wrap(padded, 3, SIZE).slice(); // arrayOffset 3
    ByteBuffer direct = ByteBuffer.allocateDirect(SIZE).put(content);
    List<ByteBuffer> all = List.of(ByteBuffer.wrap(content.clone()), sliced, direct,
        ByteBuffer.wrap(content.clone()).asReadOnlyBuffer());
    for (ByteBuffer b : all) {
      b.limit(60).position(5);
    }
    return all;
  }

  @Test
  void getCopiesAsTheJdkDoesAndMovesNothing() {
    byte[] content = bytes(1);
    for (ByteBuffer b : kinds(content)) {
      for (int[] c : new int[][] {{0, 0, 10}, {20, 3, 7}, {50, 0, 10}, {59, 9, 1}, {7, 4, 0}}) {
        byte[] ours = new byte[10];
        byte[] jdks = new byte[10];
        Buffers.get(b, c[0], ours, c[1], c[2]);
        b.get(c[0], jdks, c[1], c[2]);
        assertThat(ours).as("%s %s", b, Arrays.toString(c)).isEqualTo(jdks);
        assertThat(b.position()).isEqualTo(5);
        assertThat(b.limit()).isEqualTo(60);
      }
      byte[] whole = new byte[20];
      Buffers.get(b, 40, whole);
      assertThat(whole).isEqualTo(Arrays.copyOfRange(content, 40, 60));
    }
  }

  @Test
  void getRefusesRangesBeyondTheLimitOrTheArray() {
    for (ByteBuffer b : kinds(bytes(2))) {
      byte[] dst = new byte[10];
      assertThatThrownBy(() -> Buffers.get(b, 55, dst, 0, 10)) // the limit is 60
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> Buffers.get(b, -1, dst, 0, 1))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> Buffers.get(b, 0, dst, 5, 6))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> Buffers.get(b, 0, dst, 0, -1))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(dst).containsOnly(0);
    }
  }

  @Test
  void putCopiesAsTheJdkDoesBetweenEveryKindOfBuffer() {
    for (ByteBuffer src : kinds(bytes(3))) {
      for (boolean direct : new boolean[] {false, true}) {
        ByteBuffer ours = direct ? ByteBuffer.allocateDirect(40) : ByteBuffer.allocate(40);
        ByteBuffer jdks = ByteBuffer.allocate(40);
        ours.limit(30).position(2);
        Buffers.put(ours, 4, src, 45, 15);
        jdks.put(4, src, 45, 15);
        byte[] copied = new byte[40];
        ours.duplicate().clear().get(copied);
        assertThat(copied).as("%s into direct=%s", src, direct).isEqualTo(jdks.array());
        assertThat(ours.position()).isEqualTo(2);
        assertThat(ours.limit()).isEqualTo(30);
        assertThat(src.position()).isEqualTo(5);
        assertThatThrownBy(() -> Buffers.put(ours, 20, src, 0, 11)) // ours' limit is 30
            .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Buffers.put(ours, 0, src, 55, 6)) // src's limit is 60
            .isInstanceOf(IndexOutOfBoundsException.class);
      }
    }
  }

  @Test
  void putRefusesAReadOnlyDestination() {
    ByteBuffer readOnly = ByteBuffer.allocate(10).asReadOnlyBuffer();
    assertThatThrownBy(() -> Buffers.put(readOnly, 0, ByteBuffer.allocate(10), 0, 1))
        .isInstanceOf(ReadOnlyBufferException.class);
  }
}
