package dev.tern.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CiTest {
  @Test
  void usesStudentTForFiveRepetitions() {
    Ci ci = Ci.of(new double[] {1, 2, 3, 4, 5});
    assertThat(ci.n()).isEqualTo(5);
    assertThat(ci.mean()).isEqualTo(3.0);
    // sd = sqrt(2.5); t(0.975, 4) = 2.776
    assertThat(ci.halfWidth()).isCloseTo(2.776 * Math.sqrt(2.5) / Math.sqrt(5), within(1e-9));
  }

  @Test
  void leavesOutMissingRepetitions() {
    Ci ci = Ci.of(new double[] {Double.NaN, 4, 6});
    assertThat(ci.n()).isEqualTo(2);
    assertThat(ci.mean()).isEqualTo(5.0);
  }

  @Test
  void oneValueHasNoInterval() {
    assertThat(Ci.of(new double[] {7}).halfWidth()).isNaN();
  }

  @Test
  void rejectsNoValues() {
    assertThatThrownBy(() -> Ci.of(new double[] {Double.NaN})).isInstanceOf(IllegalArgumentException.class);
  }
}
