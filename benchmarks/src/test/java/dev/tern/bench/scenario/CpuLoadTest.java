package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CpuLoadTest {
  @Test
  void busyIsEverythingButIdleAndIoWait() {
    long[] s = CpuLoad.parse("cpu  100 5 50 800 40 3 2 0 0 0");
    assertThat(s).containsExactly(100 + 5 + 50 + 3 + 2, 1000);
  }

  @Test
  void anIntervalReportsAShareAndTheLoad() {
    assertThat(CpuLoad.start().stop()).matches("CPU busy \\d+% of \\d+ CPUs, load average [0-9.?]+");
  }
}
