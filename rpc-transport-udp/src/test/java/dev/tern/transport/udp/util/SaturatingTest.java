package dev.tern.transport.udp.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Saturating arithmetic clamps at the ends of {@code long} and is exact in between. */
class SaturatingTest {
  @Test
  void addIsExactInRangeAndClampsAtBothEnds() {
    assertThat(Saturating.add(2, 3)).isEqualTo(5);
    assertThat(Saturating.add(-2, 3)).isEqualTo(1);
    assertThat(Saturating.add(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(Saturating.add(Long.MAX_VALUE - 5, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(Saturating.add(Long.MIN_VALUE, -1)).isEqualTo(Long.MIN_VALUE);
    assertThat(Saturating.add(Long.MAX_VALUE, Long.MIN_VALUE)).isEqualTo(-1);
  }

  @Test
  void mulIsExactInRangeAndClampsByTheSignOfTheResult() {
    assertThat(Saturating.mul(3, 1_000_000L)).isEqualTo(3_000_000L);
    assertThat(Saturating.mul(-3, 7)).isEqualTo(-21);
    assertThat(Saturating.mul(9_300_000_000_000L, 1_000_000L)).isEqualTo(Long.MAX_VALUE);
    assertThat(Saturating.mul(-9_300_000_000_000L, 1_000_000L)).isEqualTo(Long.MIN_VALUE);
    assertThat(Saturating.mul(Long.MIN_VALUE, -1)).isEqualTo(Long.MAX_VALUE);
    assertThat(Saturating.mul(1L << 31, 1L << 31)).isEqualTo(1L << 62);
    assertThat(Saturating.mul(1L << 32, 1L << 31)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void multiplyHighIsTheJdks() {
    long[] edges = {0, 1, -1, 2, -2, 3, 1_000_000L, -1_000_000L, Integer.MAX_VALUE,
        Integer.MIN_VALUE, 0xffffffffL, -0xffffffffL, 1L << 32, -(1L << 32), (1L << 32) + 1,
        1L << 62, -(1L << 62), Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1,
        Long.MIN_VALUE + 1, 0x7fffffff80000000L, 0x80000000ffffffffL, 0x00000000ffffffffL << 16,
        0x5555555555555555L, 0xaaaaaaaaaaaaaaaaL};
    for (long a : edges) {
      for (long b : edges) {
        check(a, b);
      }
    }
    Random r = new Random(9);
    for (int i = 0; i < 1_000_000; i++) {
      long a = r.nextLong();
      long b = r.nextLong();
      check(a, b);
      check(a >> r.nextInt(64), b >> r.nextInt(64)); // products of every magnitude and sign
    }
  }

  private static void check(long a, long b) {
    long expected = Math.multiplyHigh(a, b);
    long actual = Saturating.multiplyHigh(a, b);
    if (actual != expected) {
      throw new AssertionError("multiplyHigh(" + a + ", " + b + ") = " + actual + ", the JDK's "
          + expected);
    }
  }

  @Test
  void shiftLeftClampsAndRefusesNegativeInput() {
    assertThat(Saturating.shiftLeft(5, 3)).isEqualTo(40);
    assertThat(Saturating.shiftLeft(0, 200)).isZero();
    assertThat(Saturating.shiftLeft((1L << 62) - 1, 3)).isEqualTo(Long.MAX_VALUE);
    assertThat(Saturating.shiftLeft(1, 62)).isEqualTo(1L << 62);
    assertThat(Saturating.shiftLeft(1, 63)).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> Saturating.shiftLeft(-1, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value=-1");
  }

  @Test
  void unitConversionsClampAndTreatNegativeAsZero() {
    assertThat(Saturating.msToNs(25)).isEqualTo(25_000_000L);
    assertThat(Saturating.msToNs(9_300_000_000_000L)).isEqualTo(Long.MAX_VALUE);
    assertThat(Saturating.msToNs(-1)).isZero();
    assertThat(Saturating.usToNs(Long.MAX_VALUE / 10)).isEqualTo(Long.MAX_VALUE);
  }
}
