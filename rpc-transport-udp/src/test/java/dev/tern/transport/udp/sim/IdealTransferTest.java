package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.TraceSchedule;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ideal against figures worked out by hand, and the bound's edge cases. */
class IdealTransferTest {
  private static final long MS = 1_000_000L;

  private static LinkProfile symmetric(LinkConfig c) {
    return new LinkProfile("t", "test", c, c);
  }

  @Test
  void unaryOnAFixedRateLinkIsTheHandshakeThenRequestThenResponse() {
    LinkConfig c = LinkConfig.builder().rateBitsPerSecond(1_000_000).delayMs(100).build();
    long ideal = new IdealTransfer(symmetric(c), 1, 2).of(List.of(new Call(0, 1024, 1024)));
    // 1,228-byte handshake datagrams on the wire: 9.824 ms each + 100 ms; then 1,052 bytes each
    // way: 8.416 ms + 100 ms.
    assertThat(ideal).isEqualTo(2 * (9_824_000L + 100 * MS) + 2 * (8_416_000L + 100 * MS));
  }

  @Test
  void impairmentsDoNotChangeTheIdealButDelaysDo() {
    LinkConfig clean = LinkConfig.builder().rateBitsPerSecond(2_000_000).delayMs(50).build();
    LinkConfig lossy = clean.toBuilder().loss(0.5).burstLoss(0.2, 10).reorder(0.3, 40)
        .duplicate(0.2).corrupt(0.2).queueLimitBytes(3000).build();
    List<Call> calls = Scenario.FEED.calls(new java.util.Random(4));
    long a = new IdealTransfer(symmetric(clean), 7, 8).of(calls);
    long b = new IdealTransfer(symmetric(lossy), 7, 8).of(calls);
    assertThat(b).isEqualTo(a);
    LinkConfig slower = clean.toBuilder().delayMs(60).build();
    assertThat(new IdealTransfer(symmetric(slower), 7, 8).of(calls)).isEqualTo(a + 4 * 10 * MS);
  }

  @Test
  void aTraceLinkWaitsForItsDeliveryOpportunities() {
    // One opportunity at 0 ms, the next at 500 ms, then every millisecond up to 1 s.
    long[] ms = new long[502];
    ms[0] = 0;
    for (int i = 1; i < ms.length; i++) {
      ms[i] = 499 + i;
    }
    LinkConfig t = LinkConfig.builder().trace(TraceSchedule.of("gap", ms)).delayMs(10).build();
    long ideal = new IdealTransfer(symmetric(t), 1, 2).of(List.of(new Call(0, 1024, 1024)));
    // INITIAL leaves at 0 (arrives 10 ms); the server's answer waits for the 500 ms opportunity.
    assertThat(ideal).isGreaterThanOrEqualTo(510 * MS).isLessThan(540 * MS);
  }

  @Test
  void anUnshapedLinkHasAnIdealOfZeroAndItsRunsMustNotWaitForATimer() {
    LinkProfile lan = SimProfiles.get("lan");
    assertThat(new IdealTransfer(lan, 1, 2).of(Scenario.FEED.calls(new java.util.Random(1))))
        .isZero();
    RunResult r = new RunResult();
    r.scenario = Scenario.UNARY;
    r.idealNs = 0;
    r.completionNs = MS;
    assertThat(r.withinTimeBound(Campaign.TIME_BOUND_RATIO)).isTrue();
    r.completionNs = MS + 1;
    assertThat(r.withinTimeBound(Campaign.TIME_BOUND_RATIO)).isFalse();
    assertThat(Double.isNaN(r.ratio())).isTrue();
  }

  @Test
  void everyCampaignRunIsAtLeastItsIdealAndItsSlowStartFloorAtLeastTheIdeal() {
    for (String p : List.of("wifi", "mobile", "lte-verizon", "harsh-mix")) {
      for (Scenario s : Scenario.values()) {
        RunResult r = SimRun.run(p, s, 11, dev.tern.transport.udp.connection.ConnectionConfig
            .defaults(), -1);
        assertThat(r.ok()).as(r.line()).isTrue();
        assertThat(r.completionNs).as(r.line()).isGreaterThanOrEqualTo(r.idealNs);
        assertThat(r.slowStartFloorNs).as(r.line()).isGreaterThanOrEqualTo(r.idealNs);
      }
    }
  }
}
