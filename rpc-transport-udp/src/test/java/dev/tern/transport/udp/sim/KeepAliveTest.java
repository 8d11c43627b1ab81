package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.connection.ConnectionState;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Keep-alive pings and the idle timeout on whole connections (IdlePolicy in the connection). */
class KeepAliveTest {
  private static final long S = 1_000_000_000L;

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void pingsEveryFifteenSecondsOnlyWhenAskedToStayConnected(boolean keepConnected) {
    LinkProfile p = SimProfiles.get("mobile");
    WireLog up = new WireLog(new LinkChannel(new Link(p.clientToServer(), 1, 0)));
    LinkChannel down = new LinkChannel(new Link(p.serverToClient(), 2, 0));
    // Keep-alive 15 s, idle timeout 30 s. WireLog reads frames off the wire: plaintext version
    // 1, whose packets differ only in their protection (docs/protocol.md §9).
    ConnectionConfig config = ConnectionConfig.builder().versions(Versions.V1).build();
    Simulation sim = new Simulation(1, up, down, config, config, List.of(new Call(0, 1024, 1024)));
    assertThat(sim.runUntil(sim::allCallsDone, 30 * S)).isTrue();
    long callDoneNs = sim.nowNs();
    sim.client().setKeepConnected(keepConnected);
    sim.runUntil(() -> false, callDoneNs + 100 * S);
    int pingsAfter = 0;
    for (WireLog.Datagram d : up.sent) {
      if (d.sentNs > callDoneNs + S && !d.ackOnly && d.streamIds.isEmpty()) {
        pingsAfter++;
      }
    }
    if (keepConnected) {
      // 100 s of quiet: a ping every 15 s (retransmitted if lost), and the connection lives.
      assertThat(pingsAfter).isBetween(6, 9);
      assertThat(sim.client().state()).isEqualTo(ConnectionState.ESTABLISHED);
    } else {
      assertThat(pingsAfter).isZero();
      assertThat(sim.client().state()).isEqualTo(ConnectionState.CLOSED);
    }
  }
}
