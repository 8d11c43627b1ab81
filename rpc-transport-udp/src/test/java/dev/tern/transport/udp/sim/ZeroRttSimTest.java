package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.LinkProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 0-RTT in the simulator (docs/udp-simulator.md, "0-RTT"): a resumed connection's first call
 * completes in one round trip on {@code mobile} (its request rides in the first datagram), and a
 * short seeded campaign of first connections and resumptions, against the same server instance
 * and a second one sharing the tickets, has its early data accepted in at least 97% of runs with
 * every request read exactly once. The full campaign: {@code sim.sh --zero-rtt --runs 1000}.
 */
@Timeout(300)
class ZeroRttSimTest {
  private static final int RUNS = 40;

  @Test
  void aResumedConnectionsFirstCallTakesOneRoundTripOnMobile() {
    LinkProfile p = SimProfiles.get("mobile");
    long rtt = p.rttNs();
    int clean = 0;
    for (long seed = 1; seed <= RUNS; seed++) {
      ZeroRttCampaign.Result r = ZeroRttCampaign.run(p, seed);
      assertThat(r.passed()).as("seed %d: %s", seed, r).isTrue();
      assertThat(r.resumedOpenedNs()).as("seed %d: opened before the handshake", seed).isZero();
      if (!r.lossFree()) {
        continue; // a loss costs a repair
      }
      clean++;
      // One round trip: the request in the first datagram, the response in the server's
      // first flight after the ServerHello. Not two (the full handshake's first call).
      assertThat(r.resumedCallNs()).as("seed %d: resumed first call", seed)
          .isGreaterThanOrEqualTo(rtt - rtt / 4).isLessThan(rtt + rtt / 2);
    }
    assertThat(clean).as("runs without a loss").isGreaterThanOrEqualTo(RUNS / 2);
  }

  @Test
  void aShortCampaignHasItsEarlyDataAcceptedAndEveryRequestReadOnce() {
    ZeroRttCampaign.Summary s = ZeroRttCampaign.campaign("mobile", 1_000, 100);
    assertThat(s.acceptedShare()).as("%s", s).isGreaterThanOrEqualTo(0.97);
    assertThat(s.passed()).as("%s", s).isGreaterThanOrEqualTo(97);
    for (ZeroRttCampaign.Result r : s.failures()) {
      assertThat(r.requestsRead()).as("seed %d read its request more than once", r.seed())
          .isLessThanOrEqualTo(1);
    }
  }
}
