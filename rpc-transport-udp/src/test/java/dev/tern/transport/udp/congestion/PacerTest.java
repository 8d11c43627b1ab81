package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PacerTest {
  private static final long MS = 1_000_000L;

  @Test
  void releasesOneDatagramAtOnceThenOnePerInterval() {
    Pacer p = new Pacer(1350, 1_350_000); // one datagram per ms
    assertThat(p.nextSendTimeNs(0, 1350)).isZero();
    p.onPacketSent(0, 1350);
    assertThat(p.nextSendTimeNs(0, 1350)).isEqualTo(MS);
    assertThat(p.canSend(MS - 1, 1350)).isFalse();
    assertThat(p.canSend(MS, 1350)).isTrue();
  }

  @Test
  void aSenderWokenLateCatchesUpByAtMostOneMillisecond() {
    Pacer fast = new Pacer(1350, 1_350_000_000L); // 1000 datagrams per ms
    fast.onPacketSent(fast.nextSendTimeNs(0, 1350), 1350);
    // The sender has more to send and is told to wait (1 us): it waits on the pacer.
    assertThat(fast.nextSendTimeNs(0, 1350)).isEqualTo(1_000);
    assertThat(fast.burstBytes()).isEqualTo(1_350_000);
    // The timer fired 1.5 ms late: one millisecond's worth may go at once, not more.
    assertThat(sendBackToBack(fast, 1_500_000)).isEqualTo(1000);
    Pacer slow = new Pacer(1350, 1_350_000); // one datagram per ms: the floor of two applies
    slow.onPacketSent(slow.nextSendTimeNs(0, 1350), 1350);
    assertThat(slow.nextSendTimeNs(0, 1350)).isEqualTo(MS);
    assertThat(slow.burstBytes()).isEqualTo(2700);
    assertThat(sendBackToBack(slow, 1_900_000)).isEqualTo(1);
  }

  @Test
  void creditEarnedWithoutWaitingOnThePacerStopsAtTheInitialWindow() {
    // RFC 9002 §7.7: at 1000 datagrams per ms a full quantum is 100 initial windows. A sender
    // that had nothing to send (or was held by its window) for 1.5 ms, not by the pacer, may
    // then send the initial window at once (10 datagrams of 1,350 bytes), not the quantum.
    Pacer p = new Pacer(1350, 1_350_000_000L);
    p.onPacketSent(p.nextSendTimeNs(0, 1350), 1350);
    assertThat(p.canSend(0, 1350)).isFalse(); // asking is not waiting
    assertThat(sendBackToBack(p, 1_500_000)).isEqualTo(10);
    // Once it waits on the pacer again, a late timer's catch-up is a full quantum.
    long next = p.nextSendTimeNs(1_500_000, 1350);
    assertThat(next).isGreaterThan(1_500_000);
    assertThat(sendBackToBack(p, next + 1_500_000)).isEqualTo(1000);
  }

  @Test
  void aDriverWithMillisecondTimersMayReleaseAMillisecondOfCreditEarnedWithoutWaiting() {
    // With 1 ms timers, a sender held to the initial window would wait on the pacer and wake up
    // to 1 ms later with that millisecond's credit: the same burst, a tick later. So credit
    // earned without waiting may reach 1 ms at the rate (1000 datagrams here), never more.
    Pacer p = new Pacer(1350, 1_350_000_000L);
    p.setTimerPrecisionNs(MS);
    p.onPacketSent(p.nextSendTimeNs(0, 1350), 1350);
    assertThat(p.canSend(0, 1350)).isFalse();
    assertThat(sendBackToBack(p, 1_500_000)).isEqualTo(1000);
    // Half a millisecond of timer slack: half a millisecond of credit.
    Pacer half = new Pacer(1350, 1_350_000_000L);
    half.setTimerPrecisionNs(MS / 2);
    half.onPacketSent(half.nextSendTimeNs(0, 1350), 1350);
    assertThat(sendBackToBack(half, 1_500_000)).isEqualTo(500);
    assertThatThrownBy(() -> half.setTimerPrecisionNs(MS + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aFlightAfterAPauseStartsWithOneDatagram() {
    Pacer p = new Pacer(1350, 1_350_000_000L);
    p.onPacketSent(p.nextSendTimeNs(0, 1350), 1350);
    assertThat(sendBackToBack(p, 10_000 * MS)).isEqualTo(1);
    assertThat(p.nextSendTimeNs(10_000 * MS, 1350)).isEqualTo(10_000 * MS + 1000);
  }

  @Test
  void spreadsTheInitialWindowOverHalfTheRoundTrip() {
    CongestionController cc = new Cubic(1350);
    TestRtt rtt = new TestRtt();
    rtt.sample(100 * MS);
    Pacer p = new Pacer(1350, cc.pacingRateBytesPerSecond(rtt));
    long now = 0;
    long first = -1;
    long last = 0;
    for (int i = 0; i < 10; i++) {
      now = p.nextSendTimeNs(now, 1350);
      if (first < 0) {
        first = now;
      }
      last = now;
      p.onPacketSent(now, 1350);
    }
    long interval = 1350 * 1_000_000_000L / p.rateBytesPerSecond();
    // Ten datagrams leave over at least RTT/2: first to last send plus the last one's slot.
    assertThat(last - first + interval).isGreaterThanOrEqualTo(50 * MS - 10);
    assertThat(last - first).isGreaterThanOrEqualTo(45 * MS - 10);
  }

  @Test
  void ackOnlyPacketsSpendNoTokens() {
    Pacer p = new Pacer(1350, 1_350_000);
    p.nextSendTimeNs(0, 1350);
    for (int i = 0; i < 100; i++) {
      p.onPacketSent(0, 60, false);
    }
    assertThat(p.canSend(0, 1350)).isTrue();
  }

  @Test
  void neverReleasesEarlyAtAnOddRate() {
    Pacer p = new Pacer(1200, 777_777);
    long now = 0;
    long sent = 0;
    for (int i = 0; i < 1000; i++) {
      now = p.nextSendTimeNs(now, 1200);
      p.onPacketSent(now, 1200);
      sent += 1200;
    }
    // One datagram of initial credit, then exactly the rate.
    assertThat(now).isGreaterThanOrEqualTo((sent - 1200) * 1_000_000_000L / 777_777);
  }

  @Test
  void rejectsANonPositiveRate() {
    assertThatThrownBy(() -> new Pacer(1350, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rateBytesPerSecond");
  }

  private static int sendBackToBack(Pacer p, long atNs) {
    int n = 0;
    while (p.canSend(atNs, 1350)) {
      p.onPacketSent(atNs, 1350);
      n++;
    }
    return n;
  }

  @Test
  void survivesTheRateOfANearZeroRoundTrip() {
    // cwnd / 1 ns, as on loopback: the rate is capped and the arithmetic does not overflow.
    Pacer p = new Pacer(1350, 29_400_000_000_000L);
    assertThat(p.rateBytesPerSecond()).isEqualTo(Pacer.MAX_RATE_BYTES_PER_SECOND);
    assertThat(p.canSend(0, 1350)).isTrue();
    p.onPacketSent(0, 1350);
    assertThat(p.nextSendTimeNs(0, 1350)).isPositive(); // waits on the pacer
    assertThat(sendBackToBack(p, MS)).isEqualTo((int) (p.burstBytes() / 1350));
  }
}
