package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IpdvTest {
  @Test
  void meanOfAbsoluteConsecutiveDifferences() {
    Ipdv d = new Ipdv();
    for (long ns : new long[] {100, 130, 110, 110}) {
      d.add(ns);
    }
    assertThat(d.count()).isEqualTo(3);
    assertThat(d.meanAbsNs()).isEqualTo((30 + 20 + 0) / 3.0);
  }
}
