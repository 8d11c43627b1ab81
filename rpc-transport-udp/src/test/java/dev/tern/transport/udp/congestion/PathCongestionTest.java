package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.recovery.RttEstimator;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * RFC 9000 §9.4: on a confirmed new path the controller starts again from its initial values,
 * and what the previous path's packets do afterwards is not the new path's.
 */
class PathCongestionTest {
  private static final long MS = 1_000_000L;
  private static final int MSS = 1200;

  private static RttEstimator rtt(long ms) {
    RttEstimator r = new RttEstimator();
    r.onSample(ms * MS, 0);
    return r;
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void aNewPathStartsFromTheInitialWindowAndIgnoresThePreviousPathsPackets(
      CongestionControl algorithm) {
    PathCongestion cc = new PathCongestion(algorithm, MSS, new Random(1));
    long initial = cc.congestionWindowBytes();
    RttEstimator r = rtt(20);
    long seq = 0;
    long inFlight = 0;
    // Grow the window on the first path: 200 packets sent and acknowledged, one round at a time.
    for (int round = 0; round < 20; round++) {
      long first = seq;
      for (int i = 0; i < 10; i++) {
        inFlight += MSS;
        cc.onPacketSent(round * 20 * MS, seq++, MSS, inFlight);
      }
      for (long s = first; s < seq; s++) {
        inFlight -= MSS;
        cc.onPacketAcked(round * 20 * MS + 20 * MS, s, MSS, round * 20 * MS, r, inFlight);
      }
      cc.onAckProcessed(round * 20 * MS + 20 * MS, inFlight);
    }
    assertThat(cc.congestionWindowBytes()).isGreaterThan(initial);
    // Ten more in flight on the old path when the peer's new address is confirmed.
    for (int i = 0; i < 10; i++) {
      inFlight += MSS;
      cc.onPacketSent(500 * MS, seq++, MSS, inFlight);
    }
    CongestionController before = cc.current();
    cc.onNewPath(seq);
    assertThat(cc.current()).isNotSameAs(before);
    assertThat(cc.resets()).isEqualTo(1);
    assertThat(cc.congestionWindowBytes()).isEqualTo(initial);
    assertThat(cc.inSlowStart()).isTrue();
    // The old path's packets are lost (the peer left that address): the new window stays, and
    // so does it through persistent congestion before anything sent on the new path is acked.
    for (long s = seq - 10; s < seq; s++) {
      inFlight -= MSS;
      cc.onPacketLost(600 * MS, s, MSS, 500 * MS, inFlight);
    }
    cc.onPersistentCongestion(600 * MS);
    assertThat(cc.congestionWindowBytes()).isEqualTo(initial);
    // The new path's own loss is its own.
    inFlight += MSS;
    cc.onPacketSent(610 * MS, seq, MSS, inFlight);
    inFlight += MSS;
    cc.onPacketSent(611 * MS, seq + 1, MSS, inFlight);
    inFlight -= MSS;
    cc.onPacketAcked(700 * MS, seq + 1, MSS, 611 * MS, rtt(90), inFlight);
    inFlight -= MSS;
    cc.onPacketLost(700 * MS, seq, MSS, 610 * MS, inFlight);
    cc.onPersistentCongestion(701 * MS);
    assertThat(cc.congestionWindowBytes()).isLessThan(initial);
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void theRttEstimateStartsAgainToo(CongestionControl algorithm) {
    RttEstimator r = rtt(20);
    r.onSample(22 * MS, 0);
    r.reset();
    assertThat(r.hasSample()).isFalse();
    assertThat(r.smoothedRttNs()).isEqualTo(RttEstimator.INITIAL_RTT_NS);
    assertThat(r.minRttNs()).isEqualTo(Long.MAX_VALUE);
    r.onSample(300 * MS, 0);
    assertThat(r.smoothedRttNs()).isEqualTo(300 * MS);
    assertThat(r.minRttNs()).isEqualTo(300 * MS);
  }
}
