package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class DeliveryRateEstimatorTest {
  private static final long MS = 1_000_000L;

  @Test
  void measuresTheRateAcknowledgementsArriveAt() {
    DeliveryRateEstimator e = new DeliveryRateEstimator(16);
    // A window of 25 packets, 50 ms of propagation, a bottleneck delivering one packet per 2 ms;
    // each acknowledgement clocks out the next packet.
    long[] ackAt = new long[400];
    long inflight = 0;
    for (int i = 0; i < 25; i++) {
      inflight += 1000;
      e.onPacketSent(0, i, 1000, inflight);
      ackAt[i] = 50 * MS + 2 * i * MS;
    }
    for (int i = 0; i < 375; i++) {
      long now = ackAt[i];
      e.onPacketAcked(now, i, 1000);
      inflight -= 1000;
      boolean valid = e.generateSample(40 * MS);
      if (i >= 50) {
        assertThat(valid).isTrue();
        assertThat((double) e.sampleRateBytesPerSecond()).isCloseTo(500_000.0, within(10_000.0));
      }
      inflight += 1000;
      e.onPacketSent(now, i + 25, 1000, inflight);
      ackAt[i + 25] = Math.max(now + 50 * MS, ackAt[i + 24] + 2 * MS);
    }
    assertThat(e.deliveredBytes()).isEqualTo(375_000);
  }

  @Test
  void ackCompressionCannotInflateTheRate() {
    DeliveryRateEstimator e = new DeliveryRateEstimator(16);
    for (int i = 0; i < 50; i++) {
      e.onPacketSent(i * MS, i, 1000, (i + 1) * 1000L);
    }
    // All acknowledgements arrive at one instant: the send interval (1 packet/ms) bounds the rate.
    for (int i = 0; i < 50; i++) {
      e.onPacketAcked(100 * MS, i, 1000);
    }
    assertThat(e.generateSample(10 * MS)).isTrue();
    assertThat((double) e.sampleRateBytesPerSecond()).isLessThanOrEqualTo(1_000_000.0 * 50 / 49 + 1);
    assertThat(e.newlyAckedBytes()).isEqualTo(50_000);
  }

  @Test
  void marksSamplesApplicationLimitedUntilThatDataIsDelivered() {
    DeliveryRateEstimator e = new DeliveryRateEstimator(16);
    e.onPacketSent(0, 0, 1000, 1000);
    e.onApplicationLimited(1000);
    e.onPacketSent(MS, 1, 1000, 2000);
    e.onPacketAcked(50 * MS, 0, 1000);
    e.generateSample(10 * MS);
    assertThat(e.sampleAppLimited()).isFalse();
    assertThat(e.appLimited()).isTrue();
    e.onPacketAcked(51 * MS, 1, 1000);
    e.generateSample(10 * MS);
    assertThat(e.sampleAppLimited()).isTrue();
    assertThat(e.appLimited()).isFalse();
  }

  @Test
  void growsItsRingForALargeFlightAndCountsLoss() {
    DeliveryRateEstimator e = new DeliveryRateEstimator(16);
    for (int i = 0; i < 5000; i++) {
      e.onPacketSent(i * 1000L, i, 1200, (i + 1) * 1200L);
    }
    e.onPacketLost(3, 1200);
    e.onPacketAcked(100 * MS, 4999, 1200);
    assertThat(e.generateSample(10 * MS)).isTrue();
    assertThat(e.samplePriorDeliveredBytes()).isZero();
    assertThat(e.sampleTxInFlightBytes()).isEqualTo(5000 * 1200L);
    assertThat(e.sampleLostBytes()).isEqualTo(1200);
    assertThat(e.lostBytes()).isEqualTo(1200);
  }

  @Test
  void rejectsANonPositiveCapacity() {
    assertThatThrownBy(() -> new DeliveryRateEstimator(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
  }
}
