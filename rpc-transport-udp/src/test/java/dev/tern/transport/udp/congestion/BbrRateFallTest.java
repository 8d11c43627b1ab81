package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.TraceSchedule;
import org.junit.jupiter.api.Test;

/**
 * BBR on a link whose rate falls (a cellular link fading), and the standing-queue measure of
 * {@link PathSim} that docs/udp-congestion.md uses for the LTE target.
 */
class BbrRateFallTest {
  private static final long MS = 1_000_000L;
  private static final long RTT_MS = 60;

  /** 12 Mbit/s for 10 s, then 2 Mbit/s for 20 s (1500-byte opportunities), repeating. */
  private static LinkConfig fallingLink() {
    long[] ms = new long[10_000 + 20_000 / 6];
    int n = 0;
    for (long t = 1; t <= 10_000; t++) {
      ms[n++] = t; // one opportunity a ms: 12 Mbit/s
    }
    for (long t = 10_006; t <= 30_000; t += 6) {
      ms[n++] = t; // one every 6 ms: 2 Mbit/s
    }
    TraceSchedule trace = TraceSchedule.of("falling", java.util.Arrays.copyOf(ms, n));
    // A deep queue (about 1 s at the high rate), as on the LTE traces: overflow is rare.
    return LinkConfig.builder().trace(trace).delayMs(RTT_MS / 2).queueLimitBytes(1_500_000)
        .build();
  }

  @Test
  void bringsItsEstimateDownWhenTheRateFallsSoTheQueueDrains() {
    PathSim sim = new PathSim(fallingLink(), 3);
    Bbr bbr = new Bbr(PathSim.MSS, 3);
    PathSim.Flow f = sim.addFlow(bbr, 0, Long.MAX_VALUE);
    f.logSends = false;
    sim.run(9_000 * MS);
    assertThat(bbr.bandwidthEstimateBytesPerSecond() * 8).isGreaterThan(9_000_000L);
    sim.run(12_500 * MS);
    // Two and a half seconds after the fall the model is near the new rate although the max
    // filter still remembers 12 Mbit/s (bw_lo bounds it)...
    assertThat(bbr.bandwidthEstimateBytesPerSecond() * 8).isLessThan(3_000_000L);
    sim.run(14_000 * MS);
    int from = sim.selfQueueDelayCount;
    sim.run(20_000 * MS);
    // ...and from then on packets do not wait a base RTT behind earlier ones at the median
    // (1.25 BDP at 12 Mbit/s would be 7.5 BDP at 2 Mbit/s: 450 ms of queue).
    long[] later = java.util.Arrays.copyOfRange(sim.selfQueueDelaysNs, from,
        sim.selfQueueDelayCount);
    java.util.Arrays.sort(later);
    assertThat(later).isNotEmpty();
    assertThat(later[later.length / 2]).isLessThan(RTT_MS * MS);
    // It still uses the slower link.
    assertThat(f.goodputBitsPerSecond(14_000 * MS, 20_000 * MS)).isGreaterThan(0.8 * 2e6);
  }

  @Test
  void lowersTheBoundOnlyOnRoundsThatWereNotApplicationLimited() {
    long[] after = new long[2];
    for (int appLimited = 0; appLimited < 2; appLimited++) {
      Bbr bbr = new Bbr(RoundDriver.MSS, 1);
      RoundDriver d = new RoundDriver(bbr);
      for (int i = 0; i < 12; i++) {
        d.round(20, 50 * MS); // 540 kB/s, min RTT 50 ms
      }
      long before = bbr.bandwidthEstimateBytesPerSecond();
      assertThat(bbr.mode()).isIn(Bbr.Mode.PROBE_BW_DOWN, Bbr.Mode.PROBE_BW_CRUISE);
      after[appLimited] = 100;
      for (int i = 0; i < 5; i++) {
        if (appLimited == 1) {
          bbr.onApplicationLimited(d.nowNs, d.inFlight);
        }
        // A fifth of the rate at twice the min RTT: a queue that stays all round.
        d.round(4, 100 * MS);
        after[appLimited] = Math.min(after[appLimited],
            bbr.bandwidthEstimateBytesPerSecond() * 100 / before);
      }
    }
    // Path-limited: cut by beta per round, at least three times (0.7^3 = 34%) before the smaller
    // BDP brings the next REFILL, which forgets the bound (§5.3.3.3). Application-limited: never.
    assertThat(after[0]).isLessThanOrEqualTo(35);
    assertThat(after[1]).isGreaterThanOrEqualTo(99);
    assertThat(after[0]).isGreaterThan(0);
  }

  @Test
  void standingQueueStillChargesASenderThatOverdrivesTheLink() {
    LinkConfig link = fallingLink();
    long mean = link.meanRateBitsPerSecond() / 8;
    PathSim over = new PathSim(link, 1);
    over.addFlow(new FixedRate(mean * 120 / 100), 0, Long.MAX_VALUE).logSends = false;
    over.run(30_000 * MS);
    long standing = over.percentileStandingSelfQueueNs(0.95, RTT_MS * MS);
    assertThat(standing).isGreaterThan(2 * RTT_MS * MS);
    assertThat(standing).isLessThanOrEqualTo(over.percentileSelfQueueDelayNs(0.95));
    // A sender well under the lowest rate keeps none.
    PathSim under = new PathSim(link, 1);
    under.addFlow(new FixedRate(2_000_000L / 8 / 2), 0, Long.MAX_VALUE).logSends = false;
    under.run(30_000 * MS);
    assertThat(under.percentileStandingSelfQueueNs(0.95, RTT_MS * MS)).isLessThan(2 * MS);
  }
}
