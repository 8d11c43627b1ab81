package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ArrivalGapsTest {
  @Test
  void longestGapBetweenArrivals() {
    ArrivalGaps g = new ArrivalGaps();
    assertThat(g.any()).isFalse();
    assertThat(g.longestNs(1000, false)).isZero();
    g.arrival(100);
    g.arrival(150);
    g.arrival(400);
    g.arrival(420);
    assertThat(g.longestNs(430, true)).isEqualTo(250);
    assertThat(g.lastNs()).isEqualTo(420);
  }

  @Test
  void anUnfinishedDownloadStallsUntilTheEndOfTheWait() {
    ArrivalGaps g = new ArrivalGaps();
    g.arrival(100);
    g.arrival(200);
    assertThat(g.longestNs(1200, false)).isEqualTo(1000);
    assertThat(g.longestNs(1200, true)).isEqualTo(100);
  }
}
