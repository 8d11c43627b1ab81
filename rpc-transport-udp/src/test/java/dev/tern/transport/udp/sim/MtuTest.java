package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.path.MtuDiscovery;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** PMTU discovery on whole connections over paths that drop datagrams above a size. */
class MtuTest {
  private static final long MS = 1_000_000L;

  /** A path that drops every datagram whose UDP payload exceeds {@code maxPayload}. */
  private static Channel limited(Channel inner, int maxPayload) {
    return (nowNs, datagram, deliverAtNs, corrupt) -> datagram.remaining() > maxPayload ? 0
        : inner.transmit(nowNs, datagram, deliverAtNs, corrupt);
  }

  private static Simulation run(String profileName, int pathMaxPayload, List<Call> calls,
      long seed) {
    LinkProfile p = SimProfiles.get(profileName);
    Channel up = limited(new LinkChannel(new Link(p.clientToServer(), seed * 31 + 1, 0)),
        pathMaxPayload);
    Channel down = limited(new LinkChannel(new Link(p.serverToClient(), seed * 31 + 2, 0)),
        pathMaxPayload);
    ConnectionConfig config = ConnectionConfig.defaults();
    Simulation sim = new Simulation(seed, up, down, config, config, calls);
    sim.runUntil(() -> sim.allCallsDone() || sim.fatal() != null, 120_000 * MS);
    return sim;
  }

  @ParameterizedTest
  @CsvSource({"wifi,1", "lossy-fat,2", "mobile,3"})
  void aPathOf1500BytesReachesTheLargestFittingSizeInThreeProbes(String profile, long seed) {
    // IPv4 over a 1500-byte MTU: 1472 bytes of UDP payload.
    Simulation sim = run(profile, 1472, List.of(new Call(0, 128, 1 << 20)), seed);
    assertThat(sim.fatal()).isNull();
    assertThat(sim.allCallsDone()).isTrue();
    MtuDiscovery server = sim.server().mtuDiscovery();
    assertThat(sim.server().maxDatagramBytes()).isEqualTo(1472);
    assertThat(server.state()).isEqualTo(MtuDiscovery.State.SEARCH_COMPLETE);
    assertThat(server.probesSent()).isEqualTo(3);
    assertThat(sim.client().maxDatagramBytes()).isEqualTo(1472);
  }

  @ParameterizedTest
  @CsvSource({"wifi,1", "mobile,2", "lossy-fat,3"})
  void aPathDroppingAbove1300FallsBackWithoutFailingACall(String profile, long seed) {
    Scenario feed = Scenario.FEED;
    Simulation sim = run(profile, 1300, feed.calls(new java.util.Random(seed)), seed);
    assertThat(sim.fatal()).isNull();
    assertThat(sim.allCallsDone()).isTrue();
    assertThat(sim.server().maxDatagramBytes()).isBetween(1200, 1300);
    assertThat(sim.server().mtuDiscovery().blackHolesDetected()).isPositive();
  }

  @ParameterizedTest
  @CsvSource({"mobile,1", "3g-tmobile,2", "wifi,3"})
  void theFirstRequestGoesAheadOfAnyPmtuProbe(String profile, long seed) {
    // RFC 8899 §5.1: probing must not delay application data.
    LinkProfile p = SimProfiles.get(profile);
    WireLog up = new WireLog(new LinkChannel(new Link(p.clientToServer(), seed * 31 + 1, 0)));
    Channel down = new LinkChannel(new Link(p.serverToClient(), seed * 31 + 2, 0));
    // WireLog reads frames off the wire: plaintext version 1, whose packets differ only in
    // their protection (docs/protocol.md §9).
    ConnectionConfig config = ConnectionConfig.builder().versions(Versions.V1).build();
    Simulation sim = new Simulation(seed, up, down, config, config,
        List.of(new Call(0, 4096, 1 << 16)));
    sim.runUntil(() -> sim.allCallsDone() || sim.fatal() != null, 120_000 * MS);
    assertThat(sim.fatal()).isNull();
    assertThat(sim.allCallsDone()).isTrue();
    int firstData = -1;
    int firstProbe = -1;
    for (int i = 0; i < up.sent.size(); i++) {
      WireLog.Datagram d = up.sent.get(i);
      if (firstData < 0 && !d.streamIds.isEmpty()) {
        firstData = i;
      }
      // A PMTU probe: ack-eliciting, no stream data, larger than any packet of the base size.
      if (firstProbe < 0 && !d.ackOnly && d.streamIds.isEmpty() && d.bytes > 1252) {
        firstProbe = i;
      }
    }
    assertThat(firstData).isNotNegative();
    assertThat(firstProbe).isNotNegative();
    assertThat(up.sent.get(firstData).sentNs).isLessThan(up.sent.get(firstProbe).sentNs);
  }

  @org.junit.jupiter.api.Test
  void retransmissionsOfALostFlightGoAheadOfAPmtuProbe() {
    // mobile, concurrent, seed 2689: the client's whole first flight of requests is lost in one
    // burst; the ACK of its PTO probes declares it lost while a PMTU probe is due. RFC 8899 §5.1:
    // the repairs go first, the probe after them.
    long seed = 2689;
    LinkProfile p = SimProfiles.get("mobile");
    WireLog up = new WireLog(new LinkChannel(new Link(p.clientToServer(), seed * 31 + 1, 0)));
    Channel down = new LinkChannel(new Link(p.serverToClient(), seed * 31 + 2, 0));
    // WireLog reads frames off the wire: plaintext version 1, whose packets differ only in
    // their protection (docs/protocol.md §9).
    ConnectionConfig config = ConnectionConfig.builder().versions(Versions.V1).build();
    Simulation sim = new Simulation(seed, up, down, config, config,
        Scenario.CONCURRENT.calls(new java.util.Random(seed)));
    sim.runUntil(() -> sim.allCallsDone() || sim.fatal() != null, 120_000 * MS);
    assertThat(sim.fatal()).isNull();
    assertThat(sim.allCallsDone()).isTrue();
    assertThat(sim.client().stats().packetsRetransmitted).isPositive();
    long lastData = -1;
    long firstProbe = Long.MAX_VALUE;
    for (WireLog.Datagram d : up.sent) {
      if (!d.streamIds.isEmpty()) {
        lastData = Math.max(lastData, d.sentNs);
      } else if (!d.ackOnly && d.bytes > 1252) {
        firstProbe = Math.min(firstProbe, d.sentNs);
      }
    }
    assertThat(firstProbe).isNotEqualTo(Long.MAX_VALUE);
    assertThat(firstProbe).isGreaterThan(lastData);
  }
}
