package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BbrLossRoundTest {
  private static final int MSS = 1350;

  @Test
  void oneBurstIsOneLostRangeHoweverManyPacketsItTakes() {
    BbrLossRound r = new BbrLossRound();
    for (long pn = 10; pn < 20; pn++) {
      r.onLost(pn, MSS);
    }
    assertThat(r.roundLostRanges()).isEqualTo(1);
    assertThat(r.roundLostBytes()).isEqualTo(10L * MSS);
    assertThat(r.roundLossTooHigh(MSS)).isTrue();
  }

  @Test
  void scatteredLossesCountOneRangeEachAndANewRoundStartsAtZero() {
    BbrLossRound r = new BbrLossRound();
    for (long pn = 0; pn < 12; pn += 2) {
      r.onLost(pn, MSS);
    }
    assertThat(r.roundLostRanges()).isEqualTo(6);
    r.startRound();
    assertThat(r.roundLostRanges()).isZero();
    assertThat(r.roundLostBytes()).isZero();
  }

  @Test
  void aWholeFirstFlightLostInOneBurstDoesNotEndStartup() {
    Bbr bbr = new Bbr(RoundDriver.MSS, 7);
    RoundDriver d = new RoundDriver(bbr);
    d.round(10, 200_000_000L);
    // The next ten packets vanish in one fade; the round after them is acknowledged in full.
    for (int i = 0; i < 10; i++) {
      bbr.onPacketSent(d.nowNs, d.nextPn, RoundDriver.MSS, d.inFlight + RoundDriver.MSS);
      d.inFlight += RoundDriver.MSS;
      bbr.onPacketLost(d.nowNs, d.nextPn++, RoundDriver.MSS, d.nowNs, d.inFlight);
      d.inFlight -= RoundDriver.MSS;
    }
    d.round(10, 200_000_000L);
    d.round(10, 200_000_000L);
    assertThat(bbr.mode()).isEqualTo(Bbr.Mode.STARTUP);
  }
}
