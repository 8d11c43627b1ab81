package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BbrTest {
  private static final long MS = 1_000_000L;

  @Test
  void modelsTheBottleneckAndCyclesThroughItsStates() {
    Bbr bbr = new Bbr(PathSim.MSS, 5);
    PathSim sim = new PathSim(20_000_000L, 40 * MS, 100_000, 0.0, 5);
    sim.addFlow(bbr, 0, Long.MAX_VALUE).logSends = false;
    Set<Bbr.Mode> seen = EnumSet.noneOf(Bbr.Mode.class);
    for (long t = 0; t < 12_000 * MS; t += 5 * MS) {
      sim.run(t);
      seen.add(bbr.mode());
    }
    assertThat(seen).containsAll(EnumSet.allOf(Bbr.Mode.class));
    assertThat((double) bbr.bandwidthEstimateBytesPerSecond()).isCloseTo(2_500_000.0, within(250_000.0));
    assertThat(bbr.minRttNs()).isBetween(40 * MS, 42 * MS);
  }

  @Test
  void leavesStartupOnExcessiveLossAndCapsInflight() {
    Bbr bbr = new Bbr(PathSim.MSS, 5);
    // A tenth of a BDP of buffer: STARTUP's 2.77x overshoot overflows it heavily.
    PathSim sim = new PathSim(50_000_000L, 80 * MS, 50_000, 0.0, 5);
    sim.addFlow(bbr, 0, Long.MAX_VALUE).logSends = false;
    sim.run(3_000 * MS);
    assertThat(bbr.mode()).isNotEqualTo(Bbr.Mode.STARTUP);
  }

  @Test
  void keepsNearlyTheWholeLinkUnderSparseRandomLoss() {
    // lossy-fat (FIELD-NOTES): 100 Mbit/s, RTT 100 ms, 1.5% random loss.
    PathSim sim = new PathSim(100_000_000L, 100 * MS, 1_250_000, 0.015, 9);
    PathSim.Flow f = sim.addFlow(new Bbr(PathSim.MSS, 9), 0, Long.MAX_VALUE);
    f.logSends = false;
    sim.run(20_000 * MS);
    assertThat(f.goodputBitsPerSecond(0, 20_000 * MS)).isGreaterThan(0.85 * 100e6 * 0.985);
    assertThat(f.timeToReachNs(0.8 * 100e6)).isBetween(0L, 3_000 * MS);
  }

  @Test
  void usesNinetyPercentOfAMobileLink() {
    PathSim sim = new PathSim(1_100_000L, 200 * MS, 64_000, 0.006, 4);
    PathSim.Flow f = sim.addFlow(new Bbr(PathSim.MSS, 4), 0, Long.MAX_VALUE);
    sim.run(30_000 * MS);
    assertThat(f.goodputBitsPerSecond(0, 30_000 * MS)).isGreaterThan(0.9 * 1.1e6);
    // The queue it keeps stays well under one base RTT.
    assertThat(sim.percentileQueueDelayNs(0.95)).isLessThan(200 * MS);
  }

  @Test
  void leavesStartupOnceAQueueOfHalfABdpPersistsForARound() {
    // 1.1 Mbit/s, 200 ms, a deep (4 BDP) queue and no loss: only the model can end STARTUP. The
    // three-round rule alone needed over 2 s here (rounds stretch to 2 RTT with STARTUP's queue).
    PathSim sim = new PathSim(1_100_000L, 200 * MS, 110_000, 0.0, 3);
    Bbr bbr = new Bbr(PathSim.MSS, 3);
    sim.addFlow(bbr, 0, Long.MAX_VALUE).logSends = false;
    long leftStartupNs = -1;
    for (long t = 0; t < 3_000 * MS && leftStartupNs < 0; t += 5 * MS) {
      sim.run(t);
      if (bbr.mode() != Bbr.Mode.STARTUP) {
        leftStartupNs = t;
      }
    }
    assertThat(leftStartupNs).isBetween(0L, 1_700 * MS);
    sim.run(10_000 * MS);
    // In PROBE_BW the queue is the window's quarter BDP plus three one-datagram quanta (§5.6.3:
    // below 1.2 Mbit/s the quantum is one datagram), about 80 ms here.
    assertThat(sim.percentileQueueDelayNs(0.5)).isLessThan(90 * MS);
  }

  @Test
  void keepsTheWindowAboveTheBdpForUrgentDataExceptWhileProbingUp() {
    Bbr bbr = new Bbr(PathSim.MSS, 5);
    PathSim sim = new PathSim(20_000_000L, 40 * MS, 100_000, 0.0, 5);
    sim.addFlow(bbr, 0, Long.MAX_VALUE).logSends = false;
    boolean sawCruise = false;
    boolean sawStartup = false;
    for (long t = 0; t < 8_000 * MS; t += 5 * MS) {
      sim.run(t);
      Bbr.Mode m = bbr.mode();
      assertThat(bbr.backgroundWindowBytes()).isLessThanOrEqualTo(bbr.congestionWindowBytes());
      if (m == Bbr.Mode.PROBE_BW_CRUISE) {
        // 1.25 BDP + quanta against 1 BDP + quanta: a quarter BDP (25 KB here) kept back.
        sawCruise |= bbr.backgroundWindowBytes() < bbr.congestionWindowBytes();
      } else if (m == Bbr.Mode.STARTUP && bbr.bandwidthEstimateBytesPerSecond() > 0) {
        // 2 BDP + quanta against 1 BDP + quanta once there is a model.
        sawStartup |= bbr.backgroundWindowBytes() < bbr.congestionWindowBytes();
      } else if (m == Bbr.Mode.PROBE_BW_UP || m == Bbr.Mode.PROBE_BW_REFILL) {
        assertThat(bbr.backgroundWindowBytes()).isEqualTo(bbr.congestionWindowBytes());
      }
    }
    assertThat(sawCruise).isTrue();
    assertThat(sawStartup).isTrue();
  }

  @Test
  void stopsGrowingOnAnApplicationLimitedFlow() {
    Bbr bbr = new Bbr(RoundDriver.MSS, 1);
    RoundDriver d = new RoundDriver(bbr);
    for (int i = 0; i < 30; i++) {
      d.round(4, 50 * MS);
      bbr.onApplicationLimited(d.nowNs, d.inFlight);
    }
    // Four datagrams per 50 ms round: the estimate is that rate, the window a small multiple of it.
    assertThat(bbr.bandwidthEstimateBytesPerSecond()).isLessThanOrEqualTo(4L * 1350 * 20 + 1);
    assertThat(bbr.congestionWindowBytes()).isLessThan(40L * 1350);
  }

  /**
   * Packets that are never acknowledged nor lost (the Initial space's, discarded with it; lost
   * path-MTU probes) leave the delivery-rate ring when the controller hears they are gone. Left in,
   * each collided with every later packet mapping to its slot and doubled the ring: over a long
   * connection it grew to the whole sending sequence.
   */
  @Test
  void packetsDiscardedUnackedDoNotGrowTheDeliveryRateRing() {
    Bbr bbr = new Bbr(RoundDriver.MSS, 1);
    RoundDriver d = new RoundDriver(bbr);
    // Three packets of a space that is then discarded: sent, never acknowledged nor lost.
    for (int i = 0; i < 3; i++) {
      d.inFlight += RoundDriver.MSS;
      bbr.onPacketSent(d.nowNs, d.nextPn++, RoundDriver.MSS, d.inFlight);
    }
    for (long pn = 0; pn < 3; pn++) {
      d.inFlight -= RoundDriver.MSS;
      bbr.onPacketDiscarded(pn);
    }
    int before = bbr.rateRingCapacity();
    // 100,000 packets, eight in flight at a time, all acknowledged.
    for (int r = 0; r < 12_500; r++) {
      d.round(8, 20 * MS);
    }
    assertThat(bbr.rateRingCapacity()).as("ring slots after 100,000 packets, 8 in flight").isEqualTo(before);
  }
}
