package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class AggregatorTest {
  private static final LinkSpec MOBILE = LinkSpec.byName("mobile");

  private static RawResults unary(long... micros) {
    RawResults r = new RawResults(micros.length);
    Histogram[] hs = new Histogram[micros.length];
    for (int i = 0; i < micros.length; i++) {
      hs[i] = Recorder.newHistogram();
      hs[i].recordValue(micros[i]);
    }
    r.histograms.put("unary seq", hs);
    return r;
  }

  @Test
  void latencyBelowTheLinkFloorFailsTheRun() {
    Aggregator agg = new Aggregator();
    agg.add(MOBILE, "tcp/bbr", unary(250_000, 100_000), null);
    assertThat(agg.violations()).singleElement().asString().contains("below the link's floor");
  }

  @Test
  void goodputAboveRateTimesDeliveryFailsTheRun() {
    Aggregator agg = new Aggregator();
    RawResults r = new RawResults(2);
    r.putMetric(0, "bulk", "goodput_mbps", 1.0);
    r.putMetric(0, "bulk", "goodput_window_ms", 10_000);
    r.putMetric(1, "bulk", "goodput_mbps", 1.2); // 1.1 Mbit/s link: even 50 ms of squeeze allows 1.106
    r.putMetric(1, "bulk", "goodput_window_ms", 10_000);
    agg.add(MOBILE, "tcp/bbr", r, null);
    assertThat(agg.violations()).singleElement().asString().contains("exceeds the link's");
  }

  @Test
  void aShortWindowMayHoldOneMessageThatCrossedTheLinkBeforeItOpened() {
    Aggregator agg = new Aggregator();
    RawResults r = new RawResults(2);
    // Two 32 KiB messages in 405 ms: the link carries 1.1 Mbit/s, x 405 / 355 for the wander is
    // 1.255; one message that crossed before the window opened adds 0.647.
    r.putMetric(0, "bulk", "goodput_mbps", 1.294);
    r.putMetric(0, "bulk", "goodput_window_ms", 405);
    r.putMetric(1, "bulk", "goodput_mbps", 1.95);
    r.putMetric(1, "bulk", "goodput_window_ms", 405);
    agg.add(MOBILE, "tcp/bbr", r, null);
    assertThat(agg.violations()).singleElement().asString().contains("rep 1").contains("exceeds the link's 1.90");
  }

  @Test
  void shortWindowsMayBeSqueezedByTheDelayWanderWithoutFailing() {
    Aggregator agg = new Aggregator();
    RawResults r = new RawResults(1);
    r.putMetric(0, "bulk", "steady_goodput_mbps", 1.103);
    r.putMetric(0, "bulk", "steady_window_ms", 480);
    agg.add(MOBILE, "tcp/bbr", r, null);
    assertThat(agg.violations()).isEmpty();
  }

  @Test
  void plausibleFiguresPassAndCarryRatiosToIdealAndReference() {
    Aggregator agg = new Aggregator();
    RawResults ref = unary(300_000, 320_000);
    agg.add(MOBILE, "grpc-netty/cubic", ref, null);
    agg.add(MOBILE, "tcp/bbr", unary(310_000, 330_000), ref);
    assertThat(agg.violations()).isEmpty();
    var p50 = agg.rows().stream().filter(r -> r.variant().equals("tcp/bbr") && r.metric().equals("seq p50"))
        .findFirst().orElseThrow();
    assertThat(p50.ratioToReference()).isBetween(1.02, 1.04);
    assertThat(p50.ratioToIdeal()).isBetween(1.4, 1.5);
  }
}
