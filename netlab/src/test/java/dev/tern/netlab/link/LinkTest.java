package dev.tern.netlab.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LinkTest {
  private static final long MS = 1_000_000L;

  @Test
  void sameSeedGivesSameVerdictsAndOtherSeedsDiffer() {
    LinkConfig cfg = LinkConfig.builder().rateMbitPerSecond(5).delayMs(40).jitterMs(20)
        .queueLimitPackets(30).loss(0.05).burstLoss(0.03, 4).reorder(0.05, 15).duplicate(0.02)
        .corrupt(0.02).build();
    assertThat(trace(cfg, 42)).isEqualTo(trace(cfg, 42));
    assertThat(trace(cfg, 42)).isNotEqualTo(trace(cfg, 43));
  }

  private static List<String> trace(LinkConfig cfg, long seed) {
    Link link = new Link(cfg, seed, 0);
    Delivery d = new Delivery();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      int n = link.send(i * 2 * MS / 3, 200 + (i * 37) % 1300, d);
      out.add(n + ":" + d.dropReason() + ":" + (n > 0 ? d.deliverAtNs(0) + ":" + d.corrupted(0) : ""));
    }
    return out;
  }

  @Test
  void serialisesBackToBackPacketsAtTheConfiguredRate() {
    // 1 Mbit/s: 1250 bytes take 10 ms; 30 ms propagation.
    Link link = new Link(LinkConfig.builder().rateMbitPerSecond(1).delayMs(30).build(), 1, 0);
    Delivery d = new Delivery();
    for (int i = 1; i <= 5; i++) {
      assertThat(link.send(0, 1250, d)).isEqualTo(1);
      assertThat(d.deliverAtNs(0)).isEqualTo(i * 10 * MS + 30 * MS);
    }
    // After the queue drains, a lone packet sees only its own serialisation.
    link.send(500 * MS, 125, d);
    assertThat(d.deliverAtNs(0)).isEqualTo(500 * MS + MS + 30 * MS);
    assertThat(link.idealOneWayNs(1250)).isEqualTo(40 * MS);
    assertThat(link.meanRateBitsPerSecond()).isEqualTo(1_000_000L);
  }

  @Test
  void droptailQueueDropsWhatExceedsItsPacketLimit() {
    Link link = new Link(LinkConfig.builder().rateMbitPerSecond(1).queueLimitPackets(5).build(), 1, 0);
    Delivery d = new Delivery();
    int delivered = 0;
    for (int i = 0; i < 10; i++) {
      delivered += link.send(0, 1250, d);
      if (i >= 5) {
        assertThat(d.dropReason()).isEqualTo(DropReason.QUEUE_FULL);
      }
    }
    assertThat(delivered).isEqualTo(5);
    assertThat(link.droppedQueueFull()).isEqualTo(5);
    // 10 ms later the first packet has left, so exactly one more fits.
    assertThat(link.send(10 * MS, 1250, d)).isEqualTo(1);
    assertThat(link.send(10 * MS, 1250, d)).isZero();
  }

  @Test
  void droptailQueueHonoursItsByteLimit() {
    Link link = new Link(LinkConfig.builder().rateMbitPerSecond(1).queueLimitBytes(3000).build(), 1, 0);
    Delivery d = new Delivery();
    assertThat(link.send(0, 1500, d)).isEqualTo(1);
    assertThat(link.send(0, 1000, d)).isEqualTo(1);
    assertThat(link.send(0, 600, d)).isZero();
    assertThat(link.send(0, 500, d)).isEqualTo(1);
  }

  @Test
  void randomLossRateFallsWithinBinomialBounds() {
    double p = 0.2;
    int n = 20_000;
    Link link = new Link(LinkConfig.builder().loss(p).build(), 7, 0);
    Delivery d = new Delivery();
    for (int i = 0; i < n; i++) {
      if (link.send(i * MS, 100, d) == 0) {
        assertThat(d.dropReason()).isEqualTo(DropReason.RANDOM_LOSS);
      }
    }
    double sigma = Math.sqrt(n * p * (1 - p));
    assertThat((double) link.droppedRandomLoss()).isBetween(n * p - 4.5 * sigma, n * p + 4.5 * sigma);
    assertThat(link.deliveredPackets() + link.droppedPackets()).isEqualTo(n);
  }

  @Test
  void gilbertElliottBurstsHaveTheConfiguredMeanLengthAndRateAtLineRate() {
    double rate = 0.05;
    double burst = 6;
    // 12 Mbit/s: one 1500-byte packet per 1 ms slot; the sender keeps the link exactly busy.
    Link link = new Link(LinkConfig.builder().rateMbitPerSecond(12).burstLoss(rate, burst).build(), 11, 0);
    Delivery d = new Delivery();
    int n = 400_000;
    long bursts = 0;
    long lost = 0;
    boolean inBurst = false;
    for (int i = 0; i < n; i++) {
      boolean dropped = link.send(i * MS, 1500, d) == 0;
      if (dropped) {
        assertThat(d.dropReason()).isEqualTo(DropReason.BURST_LOSS);
        lost++;
        if (!inBurst) {
          bursts++;
        }
      }
      inBurst = dropped;
    }
    assertThat((double) lost / bursts).isCloseTo(burst, org.assertj.core.data.Percentage.withPercentage(8));
    assertThat((double) lost / n).isCloseTo(rate, org.assertj.core.data.Percentage.withPercentage(15));
  }

  @Test
  void burstChannelEvolvesWithTimeNotWithTraffic() {
    LinkConfig cfg = LinkConfig.builder().burstLoss(0.1, 5).burstSlotNs(MS).build();
    Link dense = new Link(cfg, 99, 0);
    Link sparse = new Link(cfg, 99, 0);
    Delivery d = new Delivery();
    int compared = 0;
    int lostTogether = 0;
    for (int ms = 0; ms < 200_000; ms++) {
      boolean denseLost = dense.send(ms * MS, 100, d) == 0;
      if (ms % 7 == 0) {
        boolean sparseLost = sparse.send(ms * MS, 100, d) == 0;
        assertThat(sparseLost).as("state at %d ms", ms).isEqualTo(denseLost);
        compared++;
        lostTogether += sparseLost ? 1 : 0;
      }
    }
    assertThat(compared).isGreaterThan(20_000);
    assertThat(lostTogether).isGreaterThan(1000);
  }

  @Test
  void jitterWandersWithinItsRangeAndKeepsOrder() {
    Link link = new Link(LinkConfig.builder().delayMs(100).jitterMs(50).build(), 5, 0);
    Delivery d = new Delivery();
    long last = Long.MIN_VALUE;
    double sumOffset = 0;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      long now = i * MS / 2;
      link.send(now, 1000, d);
      long delay = d.deliverAtNs(0) - now;
      assertThat(d.deliverAtNs(0)).isGreaterThanOrEqualTo(last);
      last = d.deliverAtNs(0);
      min = Math.min(min, delay);
      max = Math.max(max, delay);
      sumOffset += delay - 100 * MS;
    }
    assertThat(min).isGreaterThanOrEqualTo(75 * MS);
    assertThat(max).isLessThanOrEqualTo(125 * MS);
    assertThat(max - min).isGreaterThan(40 * MS);
    assertThat(sumOffset / n).isBetween(-3.0 * MS, 3.0 * MS);
    assertThat(link.reordered()).isZero();
  }

  @Test
  void jitterIsTheSameForEveryTrafficPatternAtTheSameTime() {
    LinkConfig cfg = LinkConfig.builder().delayMs(50).jitterMs(40).build();
    Link a = new Link(cfg, 3, 0);
    Link b = new Link(cfg, 3, 0);
    Delivery da = new Delivery();
    Delivery db = new Delivery();
    for (int ms = 0; ms < 10_000; ms++) {
      a.send(ms * MS, 100, da);
      if (ms % 13 == 0) {
        b.send(ms * MS, 100, db);
        assertThat(db.deliverAtNs(0)).isEqualTo(da.deliverAtNs(0));
      }
    }
  }

  @Test
  void reordersOnlyWhenAsked() {
    Delivery d = new Delivery();
    Link ordered = new Link(LinkConfig.builder().delayMs(20).jitterMs(40).jitterIntervalMs(5)
        .duplicate(0.1).build(), 8, 0);
    assertThat(inversions(ordered, d)).isZero();
    Link reordering = new Link(LinkConfig.builder().delayMs(20).reorder(0.05, 10).build(), 8, 0);
    int inv = inversions(reordering, d);
    assertThat(reordering.reordered()).isBetween(350L, 650L);
    assertThat(inv).isGreaterThanOrEqualTo((int) reordering.reordered());
  }

  /** Sends 10,000 packets 1 ms apart; counts pairs delivered out of order. */
  private static int inversions(Link link, Delivery d) {
    long[] at = new long[10_000];
    for (int i = 0; i < at.length; i++) {
      assertThat(link.send(i * MS, 500, d)).isPositive();
      at[i] = d.deliverAtNs(0);
    }
    int inv = 0;
    for (int i = 0; i < at.length; i++) {
      for (int j = i + 1; j < Math.min(at.length, i + 20); j++) {
        if (at[j] < at[i]) {
          inv++;
        }
      }
    }
    return inv;
  }

  @Test
  void duplicatesAndCorruptsAtTheirRates() {
    Link link = new Link(LinkConfig.builder().duplicate(0.1).corrupt(0.05).build(), 21, 0);
    Delivery d = new Delivery();
    int n = 20_000;
    long copies = 0;
    long corrupt = 0;
    for (int i = 0; i < n; i++) {
      int c = link.send(i * MS, 100, d);
      copies += c;
      for (int k = 0; k < c; k++) {
        corrupt += d.corrupted(k) ? 1 : 0;
        assertThat(d.deliverAtNs(k)).isEqualTo(i * MS);
      }
    }
    assertThat(link.duplicated()).isBetween(1700L, 2300L).isEqualTo(copies - n);
    assertThat(link.corrupted()).isEqualTo(corrupt).isBetween(900L, 1300L);
  }

  @Test
  void sendDoesNotAllocateInSteadyState() {
    LinkConfig cfg = LinkConfig.builder().rateMbitPerSecond(10).delayMs(40).jitterMs(20)
        .queueLimitPackets(100).loss(0.01).burstLoss(0.01, 6).reorder(0.01, 10).duplicate(0.01)
        .corrupt(0.01).build();
    Link link = new Link(cfg, 1, 0);
    Delivery d = new Delivery();
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long t = 0;
    for (int i = 0; i < 200_000; i++) {
      link.send(t += 1_100_000, 1400, d);
    }
    long before = mx.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 200_000; i++) {
      link.send(t += 1_100_000, 1400, d);
    }
    long allocated = mx.getCurrentThreadAllocatedBytes() - before;
    assertThat(allocated).isLessThan(1024);
  }

  @Test
  void rejectsBadArgumentsNamingThem() {
    assertThatThrownBy(() -> LinkConfig.builder().loss(1.5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loss").hasMessageContaining("1.5");
    assertThatThrownBy(() -> LinkConfig.builder().delayMs(10).jitterMs(30).build())
        .hasMessageContaining("jitterMs");
    assertThatThrownBy(() -> LinkConfig.builder().burstLoss(0.1, 0.5))
        .hasMessageContaining("meanBurstLengthPackets");
    assertThatThrownBy(() -> new Link(LinkConfig.unlimited(), 1).send(0, 0, new Delivery()))
        .hasMessageContaining("sizeBytes");
  }
}
