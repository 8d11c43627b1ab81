package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfiles;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Flows sharing one bottleneck (20 Mbit/s, RTT 40 ms, a drop-tail queue of 2 BDP, netlab's rule
 * for its profiles); the second flow starts 2 s after the first, shares are taken over the last
 * 30 s of 60.
 */
class SharingTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;

  private static double[] share(CongestionControl a, CongestionControl b, long seed) {
    long queue = LinkProfiles.defaultQueueBytes(20_000_000L, 40);
    PathSim sim = new PathSim(LinkConfig.builder().rateBitsPerSecond(20_000_000L).delayMs(20)
        .queueLimitBytes(queue).build(), seed);
    PathSim.Flow fa = sim.addFlow(CongestionControllers.create(a, PathSim.MSS, seed), 0,
        Long.MAX_VALUE);
    PathSim.Flow fb = sim.addFlow(CongestionControllers.create(b, PathSim.MSS, seed + 7), 2 * S,
        Long.MAX_VALUE);
    fa.logSends = false;
    fb.logSends = false;
    sim.run(60 * S);
    return new double[] {fa.goodputBitsPerSecond(30 * S, 60 * S),
        fb.goodputBitsPerSecond(30 * S, 60 * S)};
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2})
  void twoBbrFlowsShareWithinTwentyPercent(long seed) {
    double[] g = share(CongestionControl.BBR, CongestionControl.BBR, seed);
    assertThat(g[0] / g[1]).isBetween(1 / 1.2, 1.2);
    assertThat(g[0] + g[1]).isGreaterThan(0.9 * 20e6);
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2})
  void bbrGetsHalfToTwiceItsFairShareAgainstCubic(long seed) {
    double[] g = share(CongestionControl.BBR, CongestionControl.CUBIC, seed);
    double fair = (g[0] + g[1]) / 2;
    assertThat(g[0] / fair).isBetween(0.5, 2.0);
    assertThat(g[0] + g[1]).isGreaterThan(0.9 * 20e6);
  }
}
