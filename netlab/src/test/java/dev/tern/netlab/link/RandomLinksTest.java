package dev.tern.netlab.link;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RandomLinksTest {
  @Test
  void theSameSeedDrawsTheSameLink() {
    LinkProfile a = RandomLinks.draw(42);
    LinkProfile b = RandomLinks.draw(42);
    assertThat(a.name()).isEqualTo("random-42");
    assertThat(CustomLinks.describe(a)).isEqualTo(CustomLinks.describe(b));
    assertThat(CustomLinks.format(a)).isNotEqualTo(CustomLinks.format(RandomLinks.draw(43)));
    assertThat(a.description()).isEqualTo("random link, seed 42: " + CustomLinks.format(a));
  }

  /** A fixed seed's link, so that a change to the drawing (which would move every random link) shows. */
  @Test
  void seedOneIsPinned() {
    assertThat(CustomLinks.format(RandomLinks.draw(1))).isEqualTo(PINNED);
  }

  private static final String PINNED = "down=6.79mbit,up=2.93mbit,rtt=359ms,jitter=44ms,loss=0.13%,"
      + "reorder=0.26%,reorder-delay=12ms,duplicate=0.08%,corrupt=0%,up-queue=157781b,down-queue=548462b";

  @Test
  void everyDrawIsInsideTheStatedRangesAndPrintsExactly() {
    Set<String> distinct = new HashSet<>();
    int bursty = 0;
    for (long seed = 0; seed < 2000; seed++) {
      LinkProfile p = RandomLinks.draw(seed);
      LinkConfig up = p.clientToServer();
      LinkConfig down = p.serverToClient();
      String at = "seed " + seed + ": " + CustomLinks.format(p);
      assertThat(down.rateBitsPerSecond()).as(at).isBetween(500_000L, 50_000_000L);
      assertThat(up.rateBitsPerSecond()).as(at).isBetween(250_000L, down.rateBitsPerSecond());
      assertThat(down.rateBitsPerSecond() % 10_000).as(at).isZero();
      assertThat(p.rttNs()).as(at).isBetween(10_000_000L, 400_000_000L);
      assertThat(p.rttNs() % 1_000_000).as(at).isZero();
      assertThat(up.propagationDelayNs()).as(at).isEqualTo(down.propagationDelayNs());
      double loss = down.burstLossRate() + down.lossProbability();
      assertThat(loss).as(at).isBetween(0.0001, 0.03);
      if (down.burstLossRate() > 0) {
        bursty++;
        assertThat(down.lossProbability()).as(at).isZero();
        assertThat(down.meanBurstPackets()).as(at).isBetween(1.5, 10.0);
      }
      assertThat(down.jitterNs()).as(at).isBetween(0L, Math.min(50_000_000L, p.rttNs() / 2));
      assertThat(down.reorderProbability()).as(at).isBetween(0.0, 0.005);
      if (down.reorderProbability() > 0) {
        assertThat(down.reorderExtraDelayNs()).as(at).isBetween(5_000_000L, 30_000_000L);
      }
      assertThat(down.duplicateProbability()).as(at).isBetween(0.0, 0.001);
      assertThat(down.corruptProbability()).as(at).isZero();
      for (LinkConfig c : new LinkConfig[] {up, down}) {
        double bdp = c.rateBitsPerSecond() * (p.rttNs() / 1e9) / 8;
        assertThat(c.queueLimitBytes()).as(at).isGreaterThanOrEqualTo(RandomLinks.MIN_QUEUE_BYTES);
        assertThat((double) c.queueLimitBytes()).as(at).isBetween(Math.min(0.5 * bdp, 24_000) - 1,
            Math.max(4 * bdp, 24_000) + 1);
      }
      // the printed spec is the link: parsing it back gives the same settings
      LinkProfile again = CustomLinks.parse(CustomLinks.format(p));
      assertThat(again.serverToClient().describe()).as(at).isEqualTo(down.describe());
      assertThat(again.clientToServer().describe()).as(at).isEqualTo(up.describe());
      distinct.add(CustomLinks.format(p));
    }
    assertThat(distinct).hasSize(2000);
    assertThat(bursty).isBetween(850, 1150);
  }
}
