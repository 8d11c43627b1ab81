package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ServerStatsTest {
  @Test
  void readsVmRssInKibibytesFromProcStatus() {
    String status = "Name:\tjava\nVmPeak:\t 9000 kB\nVmRSS:\t  123456 kB\nThreads:\t40\n";
    assertThat(ServerStats.rssBytes(status)).isEqualTo(123456L * 1024);
    assertThat(ServerStats.rssBytes("Name:\tjava\n")).isEqualTo(-1);
  }

  @Test
  void roundTripsItsLineAndRejectsOthers() {
    ServerStats s = new ServerStats(1000, 2000, 3000);
    assertThat(ServerStats.parse(s.toLine())).isEqualTo(s);
    assertThatThrownBy(() -> ServerStats.parse("ERROR broken pipe")).hasMessageContaining("ERROR broken pipe");
    assertThatThrownBy(() -> ServerStats.parse("STATS 1 2")).hasMessageContaining("3 fields");
  }

  @Test
  void dividesGrowthByCountAndLeavesUnknownFiguresOut() {
    ServerStats before = new ServerStats(10_000, 50_000, 1_000_000);
    ServerStats after = new ServerStats(60_000, -1, 3_000_000);
    double[] per = after.perUnitSince(before, 100);
    assertThat(per[0]).isEqualTo(500.0);
    assertThat(per[1]).isNaN();
    assertThat(per[2]).isEqualTo(20_000.0);
    assertThatThrownBy(() -> after.perUnitSince(before, 0)).hasMessageContaining("count must be positive, was 0");
  }

  @Test
  void samplesThisProcess() {
    ServerStats s = ServerStats.sample();
    assertThat(s.heapBytes()).isPositive();
    assertThat(s.cpuNs()).isPositive();
  }
}
