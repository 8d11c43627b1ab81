package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class BulkReceiverTest {
  private static final int CHUNK = BulkScenario.CHUNK;
  private static final double RATE = 1.1e6;
  private static final long CARRY_NS = (long) (CHUNK * 8e9 / RATE);

  private static double goodputBitsPerSecond(BulkScenario.Receiver r) {
    return (r.bytes - r.firstDeliveryBytes) * 8e9 / (r.lastNs - r.firstNs);
  }

  @Test
  void steadyArrivalsMeasureTheLinkRate() {
    BulkScenario.Receiver r = new BulkScenario.Receiver(10L * CHUNK, RATE);
    for (int i = 0; i < 10; i++) {
      r.receive(CHUNK, 1_000_000_000L + i * CARRY_NS);
    }
    assertThat(r.firstDeliveryBytes).isEqualTo(CHUNK);
    assertThat(goodputBitsPerSecond(r)).isCloseTo(RATE, within(RATE * 0.01));
  }

  @Test
  void messagesReleasedTogetherByARetransmissionOpenTheWindowAfterThem() {
    // A loss in the first segments held three messages back; the retransmission released them at once.
    BulkScenario.Receiver r = new BulkScenario.Receiver(10L * CHUNK, RATE);
    long t = 1_000_000_000L;
    r.receive(CHUNK, t);
    r.receive(CHUNK, t + 100_000);
    r.receive(CHUNK, t + 200_000);
    for (int i = 1; i <= 7; i++) {
      r.receive(CHUNK, t + 200_000 + i * CARRY_NS);
    }
    assertThat(r.firstDeliveryBytes).isEqualTo(3L * CHUNK);
    assertThat(r.bytes).isEqualTo(10L * CHUNK);
    assertThat(goodputBitsPerSecond(r)).isCloseTo(RATE, within(RATE * 0.01));
  }

  @Test
  void aBurstLaterInTheDownloadStaysInsideTheWindow() {
    BulkScenario.Receiver r = new BulkScenario.Receiver(10L * CHUNK, RATE);
    long t = 1_000_000_000L;
    r.receive(CHUNK, t);
    r.receive(CHUNK, t + CARRY_NS);
    // A stall of two messages' time, then both at once: the window holds the stall.
    r.receive(CHUNK, t + 3 * CARRY_NS);
    r.receive(CHUNK, t + 3 * CARRY_NS + 50_000);
    assertThat(r.firstDeliveryBytes).isEqualTo(CHUNK);
    assertThat(goodputBitsPerSecond(r)).isLessThanOrEqualTo(RATE * 1.01);
  }

  @Test
  void onAnUnshapedLinkOnlyTheFirstMessageIsLeftOut() {
    BulkScenario.Receiver r = new BulkScenario.Receiver(3L * CHUNK, 0);
    r.receive(CHUNK, 1_000);
    r.receive(CHUNK, 2_000);
    r.receive(CHUNK, 3_000);
    assertThat(r.firstDeliveryBytes).isEqualTo(CHUNK);
    assertThat(r.firstNs).isEqualTo(1_000);
  }
}
