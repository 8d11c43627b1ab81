package dev.tern.transport.udp.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
