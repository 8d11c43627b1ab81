package dev.tern.netlab.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceReplayTest {
  private static final long MS = 1_000_000L;

  private static Link link(long... opportunities) {
    return new Link(LinkConfig.builder().trace(TraceSchedule.of("t", opportunities)).delayMs(10).build(), 1, 0);
  }

  @Test
  void deliversFullPacketsAtSuccessiveOpportunities() {
    Link link = link(1, 1, 3, 5);
    Delivery d = new Delivery();
    long[] expected = {1, 1, 3, 5, 6, 6, 8, 10};
    for (long e : expected) {
      link.send(0, 1500, d);
      assertThat(d.deliverAtNs(0)).isEqualTo(e * MS + 10 * MS);
    }
  }

  @Test
  void smallPacketsShareAnOpportunityAndLargeOnesSpanSeveral() {
    Link link = link(2, 4, 6, 8);
    Delivery d = new Delivery();
    for (int i = 0; i < 3; i++) {
      link.send(0, 500, d);
      assertThat(d.deliverAtNs(0)).isEqualTo(12 * MS);
    }
    link.send(0, 3000, d); // needs the opportunities at 4 and 6 ms
    assertThat(d.deliverAtNs(0)).isEqualTo(16 * MS);
    link.send(0, 1000, d);
    assertThat(d.deliverAtNs(0)).isEqualTo(18 * MS);
    link.send(0, 600, d); // 500 bytes left at 8 ms are not enough: the next period's 2 ms
    assertThat(d.deliverAtNs(0)).isEqualTo((8 + 2) * MS + 10 * MS);
  }

  @Test
  void opportunitiesPassWhileIdleAndPositionFollowsTime() {
    Link link = link(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    Delivery d = new Delivery();
    link.send(0, 1500, d);
    assertThat(d.deliverAtNs(0)).isEqualTo(11 * MS);
    // Idle until 6.5 ms: the opportunities at 2..6 are wasted; the next one is 7 ms.
    link.send(6 * MS + MS / 2, 1500, d);
    assertThat(d.deliverAtNs(0)).isEqualTo(17 * MS);
    // Far later: period 10 ms, 1234.2 ms lies in cycle 123 at 4.2 ms -> next opportunity 5 ms.
    link.send(1234 * MS + MS / 5, 100, d);
    assertThat(d.deliverAtNs(0)).isEqualTo((1235 + 10) * MS);
  }

  @Test
  void droptailQueueOnATraceDropsWhatDoesNotFit() {
    Link link = new Link(LinkConfig.builder().trace(TraceSchedule.of("t", 10, 20, 30, 40))
        .queueLimitPackets(2).build(), 1, 0);
    Delivery d = new Delivery();
    assertThat(link.send(0, 1500, d)).isEqualTo(1);
    assertThat(link.send(0, 1500, d)).isEqualTo(1);
    assertThat(link.send(0, 1500, d)).isZero();
    assertThat(d.dropReason()).isEqualTo(DropReason.QUEUE_FULL);
    assertThat(link.send(10 * MS, 1500, d)).isEqualTo(1);
    assertThat(d.deliverAtNs(0)).isEqualTo(30 * MS);
  }

  @Test
  void loadsMahimahiFilesAndComputesTheirMeanRate(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("x.down");
    Files.writeString(f, "0\n0\n1\n\n1000\n");
    TraceSchedule t = TraceSchedule.load(f);
    assertThat(t.size()).isEqualTo(4);
    assertThat(t.periodMs()).isEqualTo(1000);
    assertThat(t.meanRateBitsPerSecond()).isEqualTo(4 * 1500 * 8);
    Files.writeString(f, "0\nabc\n");
    assertThatThrownBy(() -> TraceSchedule.load(f)).hasMessageContaining("line 2").hasMessageContaining("abc");
    assertThatThrownBy(() -> TraceSchedule.of("bad", 5, 3)).hasMessageContaining("entry 1");
  }
}
