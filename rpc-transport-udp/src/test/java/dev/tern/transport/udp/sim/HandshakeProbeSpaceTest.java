package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.ConnectionConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RFC 9002 §6.2.1 and §A.8: before the handshake is confirmed, the probe timeout of application
 * data is not armed. A server whose handshake answer and first Initial probes are lost must send
 * its next probe in the Initial space, the only one the client can read; a 1-RTT probe then would
 * be dropped unread by the client and back the server's timer off past the Initial probe.
 */
@Timeout(60)
class HandshakeProbeSpaceTest {
  private static final long MS = 1_000_000L;
  private static final long DELAY_NS = 50 * MS;

  @Test
  void aServerWhoseHandshakeAnswersAreLostProbesInTheInitialSpace() {
    // The server's first four datagrams are lost: its answer (with its first 1-RTT packet) and the
    // answer's copy at 50 ms, then its two Initial probes at 1,049 ms (its probe timeout, 999 ms
    // after the answer, when the client's first probes arrive).
    int[] dropped = {0};
    ScriptedChannel down = new ScriptedChannel(DELAY_NS, 0, (index, datagram) -> {
      boolean drop = index < 4;
      dropped[0] += drop ? 1 : 0;
      return drop;
    });
    List<Call> calls = List.of(new Call(0, 1024, 1024));
    ConnectionConfig config = ConnectionConfig.defaults();
    Simulation sim = new Simulation(7, new ScriptedChannel(DELAY_NS, 0, null), down, config,
        config, calls);
    assertThat(sim.runUntil(sim::allCallsDone, 60_000 * MS)).as(String.valueOf(sim.fatal()))
        .isTrue();
    assertThat(dropped[0]).isEqualTo(4);
    // The server's second probe timeout, doubled, runs out at 1,049 + 1,998 ms, and its Initial
    // probes are the first answer to reach the client: the call then needs a one-way trip for
    // them and a round trip for itself. Were that timeout spent on a 1-RTT probe (due first: the
    // 1-RTT packet went out at 50 ms), the Initial probe would wait for the third (1,049 + 3,996
    // ms), after 5 s.
    long serverSecondProbeNs = (50 + 999 + 1998) * MS;
    assertThat(calls.get(0).doneNs()).as("call done")
        .isGreaterThan(serverSecondProbeNs)
        .isLessThan(serverSecondProbeNs + 4 * 2 * DELAY_NS);
  }
}
