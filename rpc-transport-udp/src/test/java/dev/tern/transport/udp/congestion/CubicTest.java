package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CubicTest {
  private static final long MS = 1_000_000L;
  private static final int MSS = RoundDriver.MSS;

  @Test
  void cutsByBetaOncePerRecoveryPeriod() {
    Cubic cubic = new Cubic(MSS);
    RoundDriver d = new RoundDriver(cubic);
    for (int i = 0; i < 4; i++) {
      d.round(-1, 100 * MS);
    }
    long before = cubic.congestionWindowBytes();
    cubic.onPacketLost(d.nowNs + 1, 1, MSS, d.nowNs - 50 * MS, 0);
    assertThat(cubic.congestionWindowBytes()).isEqualTo((long) (before * Cubic.BETA));
    assertThat(cubic.inSlowStart()).isFalse();
    // RFC 9002 §7.3.2: a packet sent before recovery began causes no second cut.
    cubic.onPacketLost(d.nowNs + 2, 2, MSS, d.nowNs - 40 * MS, 0);
    assertThat(cubic.congestionWindowBytes()).isEqualTo((long) (before * Cubic.BETA));
  }

  @Test
  void regainsWmaxAboutKSecondsAfterALoss() {
    Cubic cubic = new Cubic(MSS);
    RoundDriver d = new RoundDriver(cubic);
    while (cubic.congestionWindowBytes() < 100 * MSS) {
      d.round(-1, 100 * MS);
    }
    d.roundLosing(-1, 100 * MS, 5);
    double wMax = cubic.wMaxBytes();
    long lossNs = d.nowNs;
    // RFC 9438 §4.2: K = cbrt(W_max (1 - beta) / C) seconds, W_max in segments.
    double k = Math.cbrt(wMax / MSS * (1 - Cubic.BETA) / Cubic.C);
    long atHalfK = -1;
    while (d.nowNs - lossNs < (long) (k * 1e9)) {
      d.round(-1, 100 * MS);
      if (atHalfK < 0 && d.nowNs - lossNs >= (long) (k * 0.5e9)) {
        atHalfK = cubic.congestionWindowBytes();
      }
    }
    // Concave: most of the gap closes in the first half of the epoch; then W_max is regained.
    double reduced = wMax * Cubic.BETA;
    assertThat((atHalfK - reduced) / (wMax - reduced)).isGreaterThan(0.6);
    assertThat(cubic.congestionWindowBytes() / wMax).isCloseTo(1.0, within(0.08));
  }

  @Test
  void fastConvergenceLowersWmaxWhenTheWindowShrank() {
    Cubic cubic = new Cubic(MSS);
    RoundDriver d = new RoundDriver(cubic);
    while (cubic.congestionWindowBytes() < 60 * MSS) {
      d.round(-1, 100 * MS);
    }
    d.roundLosing(-1, 100 * MS, 2);
    double firstWmax = cubic.wMaxBytes();
    d.round(-1, 100 * MS);
    long cwnd = cubic.congestionWindowBytes();
    d.roundLosing(-1, 100 * MS, 2);
    // RFC 9438 §4.7: W_max = cwnd (1 + beta) / 2 when the window is below the previous W_max.
    assertThat(cwnd).isLessThan((long) firstWmax);
    assertThat(cubic.wMaxBytes()).isCloseTo(cwnd * (1 + Cubic.BETA) / 2, within(2.0 * MSS));
  }

  @Test
  void growsAtLeastLikeRenoOnShortRoundTrips() {
    Cubic cubic = new Cubic(MSS);
    RoundDriver d = new RoundDriver(cubic);
    while (cubic.congestionWindowBytes() < 40 * MSS) {
      d.round(-1, 2 * MS);
    }
    d.roundLosing(-1, 2 * MS, 1);
    long start = cubic.congestionWindowBytes();
    for (int i = 0; i < 100; i++) {
      d.round(-1, 2 * MS);
    }
    // RFC 9438 §4.3: at 2 ms the cubic curve is flat; the Reno-friendly estimate (alpha 0.53,
    // then 1 segment per round) must carry the window.
    assertThat(cubic.congestionWindowBytes() - start).isGreaterThan((long) (50 * MSS * Cubic.RENO_ALPHA));
  }

  @Test
  void doesNotGrowWhileApplicationLimited() {
    Cubic cubic = new Cubic(MSS);
    RoundDriver d = new RoundDriver(cubic);
    for (int i = 0; i < 20; i++) {
      d.round(2, 100 * MS);
    }
    assertThat(cubic.congestionWindowBytes()).isEqualTo(10L * MSS);
  }

  @Test
  void hystartLeavesSlowStartWhenDelayRisesWithoutLoss() {
    Cubic cubic = new Cubic(MSS);
    RoundDriver d = new RoundDriver(cubic);
    for (int i = 0; i < 3; i++) {
      d.round(-1, 100 * MS);
    }
    assertThat(cubic.inSlowStart()).isTrue();
    long cwndBeforeRise = cubic.congestionWindowBytes();
    // RFC 9406 §4.2: +16 ms (above max(4, min(100/8, 16)) = 12.5 ms) enters CSS ...
    d.round(-1, 116 * MS);
    d.round(-1, 116 * MS);
    long cwndInCss = cubic.congestionWindowBytes();
    assertThat(cwndInCss).isLessThan(cwndBeforeRise * 4);
    for (int i = 0; i < 6 && cubic.inSlowStart(); i++) {
      d.round(-1, 116 * MS);
    }
    // ... and CSS_ROUNDS later slow start is over, without any loss.
    assertThat(cubic.inSlowStart()).isFalse();
  }

  @Test
  void hystartResumesSlowStartWhenTheRiseWasSpurious() {
    Cubic cubic = new Cubic(MSS);
    RoundDriver d = new RoundDriver(cubic);
    for (int i = 0; i < 3; i++) {
      d.round(-1, 100 * MS);
    }
    d.round(-1, 120 * MS);
    d.round(-1, 100 * MS);
    long before = cubic.congestionWindowBytes();
    d.round(-1, 100 * MS);
    assertThat(cubic.inSlowStart()).isTrue();
    assertThat(cubic.congestionWindowBytes()).isCloseTo(2 * before, within((long) MSS));
  }

  @Test
  void aSpuriousCongestionEventIsUndoneAsRfc9438Says() {
    Cubic cubic = new Cubic(MSS);
    RoundDriver d = new RoundDriver(cubic);
    while (cubic.congestionWindowBytes() < 100 * MSS) {
      d.round(-1, 100 * MS);
    }
    d.roundLosing(-1, 100 * MS, 5); // a first event: W_max set, congestion avoidance
    for (int i = 0; i < 20; i++) {
      d.round(-1, 100 * MS);
    }
    long cwnd = cubic.congestionWindowBytes();
    long ssthresh = cubic.ssthreshBytes;
    double wMax = cubic.wMaxBytes();
    long eventStart = d.nowNs;
    cubic.onPacketLost(eventStart, 1_000_000, MSS, d.nowNs - 1, cwnd);
    assertThat(cubic.congestionWindowBytes()).isLessThan(cwnd);
    assertThat(cubic.wMaxBytes()).isNotEqualTo(wMax);
    cubic.onSpuriousCongestion(d.nowNs + 1, eventStart - 1); // another event's: no undo
    assertThat(cubic.congestionWindowBytes()).isLessThan(cwnd);
    cubic.onSpuriousCongestion(d.nowNs + 1, eventStart);
    // RFC 9438 §4.9: cwnd, ssthresh and W_max as they were before the event.
    assertThat(cubic.congestionWindowBytes()).isEqualTo(cwnd);
    assertThat(cubic.ssthreshBytes).isEqualTo(ssthresh);
    assertThat(cubic.wMaxBytes()).isEqualTo(wMax);
    // Undone once: a second call changes nothing; persistent congestion is never undone.
    cubic.onSpuriousCongestion(d.nowNs + 2, eventStart);
    assertThat(cubic.congestionWindowBytes()).isEqualTo(cwnd);
    cubic.onPersistentCongestion(d.nowNs + 3);
    cubic.onSpuriousCongestion(d.nowNs + 4, d.nowNs + 3);
    assertThat(cubic.congestionWindowBytes()).isEqualTo(2L * MSS);
  }
}
