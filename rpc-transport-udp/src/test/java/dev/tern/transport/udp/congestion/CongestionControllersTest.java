package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Behaviour every algorithm shares, checked for each through the factory. */
class CongestionControllersTest {
  private static final long MS = 1_000_000L;

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void startsWithTenDatagramInitialWindow(CongestionControl algorithm) {
    CongestionController cc = CongestionControllers.create(algorithm, 1350, 1);
    assertThat(cc.congestionWindowBytes()).isEqualTo(13_500);
    assertThat(cc.inSlowStart()).isTrue();
    assertThat(cc.canSend(12_150, 1350)).isTrue();
    assertThat(cc.canSend(12_151, 1350)).isFalse();
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void pacesTheInitialWindowOverAtLeastHalfTheRoundTrip(CongestionControl algorithm) {
    CongestionController cc = CongestionControllers.create(algorithm, 1350, 1);
    TestRtt rtt = new TestRtt();
    rtt.sample(100 * MS);
    long rate = cc.pacingRateBytesPerSecond(rtt);
    // Ten datagrams at this rate occupy RTT/2 (FIELD-NOTES: spread over about RTT/2).
    assertThat(cc.congestionWindowBytes() * 1_000_000_000L / rate).isBetween(50 * MS - 1000, 50 * MS + 1000);
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void fillsACleanPath(CongestionControl algorithm) {
    PathSim sim = new PathSim(20_000_000L, 40 * MS, 100_000, 0.0, 7);
    PathSim.Flow flow = sim.addFlow(CongestionControllers.create(algorithm, PathSim.MSS, 7), 0,
        Long.MAX_VALUE);
    sim.run(15_000 * MS);
    assertThat(flow.goodputBitsPerSecond(5_000 * MS, 15_000 * MS)).isGreaterThan(0.85 * 20e6);
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void keepsLossLowOnAShallowBuffer(CongestionControl algorithm) {
    // Half a BDP of buffer: every algorithm must back off from the overflow it causes.
    PathSim sim = new PathSim(20_000_000L, 40 * MS, 50_000, 0.0, 3);
    PathSim.Flow flow = sim.addFlow(CongestionControllers.create(algorithm, PathSim.MSS, 3), 0,
        Long.MAX_VALUE);
    sim.run(20_000 * MS);
    assertThat((double) flow.lostPackets / flow.sentPackets).isLessThan(0.05);
    assertThat(flow.goodputBitsPerSecond(5_000 * MS, 20_000 * MS)).isGreaterThan(0.7 * 20e6);
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void neverSendsMoreBackToBackThanThePacerAllows(CongestionControl algorithm) {
    PathSim sim = new PathSim(50_000_000L, 60 * MS, 400_000, 0.01, 11);
    PathSim.Flow flow = sim.addFlow(CongestionControllers.create(algorithm, PathSim.MSS, 11), 0,
        Long.MAX_VALUE);
    sim.run(5_000 * MS);
    assertThat(flow.sentPackets).isGreaterThan(1000);
    assertThat(flow.worstBackToBackExcessBytes()).isLessThanOrEqualTo(0);
    assertThat(flow.worstPacingExcessBytes()).isLessThanOrEqualTo(0);
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void persistentCongestionShrinksTheWindowToAFewDatagrams(CongestionControl algorithm) {
    CongestionController cc = CongestionControllers.create(algorithm, 1350, 1);
    cc.onPersistentCongestion(10 * MS);
    assertThat(cc.congestionWindowBytes()).isBetween(2L * 1350, 4L * 1350);
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void followsALargerDatagramSize(CongestionControl algorithm) {
    CongestionController cc = CongestionControllers.create(algorithm, 1200, 1);
    cc.onMaxDatagramSizeChanged(1472);
    cc.onPersistentCongestion(10 * MS);
    assertThat(cc.congestionWindowBytes()).isGreaterThanOrEqualTo(2L * 1472);
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> CongestionControllers.create(null, 1350, 1))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("algorithm");
    assertThatThrownBy(() -> CongestionControllers.create(CongestionControl.CUBIC, 1000, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1000");
    assertThat(CongestionControllers.defaultAlgorithm()).isEqualTo(CongestionControl.BBR);
  }
}
