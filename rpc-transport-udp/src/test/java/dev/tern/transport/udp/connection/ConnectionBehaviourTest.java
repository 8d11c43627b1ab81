package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.sim.Call;
import dev.tern.transport.udp.sim.RunResult;
import dev.tern.transport.udp.sim.ScriptedChannel;
import dev.tern.transport.udp.sim.SimRun;
import dev.tern.transport.udp.sim.Simulation;
import dev.tern.transport.udp.stream.StreamLimits;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Whole-connection behaviour, in the simulator over a clean 10 Mbit/s, 50 ms path. */
@Timeout(60)
class ConnectionBehaviourTest {
  private static final long DELAY = 25_000_000L;

  private static Simulation sim(ConnectionConfig client, ConnectionConfig server,
      List<Call> calls) {
    return new Simulation(3, new ScriptedChannel(DELAY, 10_000_000, null),
        new ScriptedChannel(DELAY, 10_000_000, null), client, server, calls);
  }

  @Test
  void clientRetriesWithTheHighestCommonVersionAfterVersionNegotiation() {
    ConnectionConfig client = ConnectionConfig.builder().versions(Versions.V2, Versions.V1).build();
    ConnectionConfig server = ConnectionConfig.builder().versions(Versions.V1).build();
    List<Call> calls = List.of(new Call(0, 100, 100));
    Simulation s = sim(client, server, calls);
    assertThat(s.runUntil(s::allCallsDone, 10_000_000_000L)).as(String.valueOf(s.fatal())).isTrue();
    assertThat(s.client().version()).isEqualTo(Versions.V1);
    assertThat(s.server().version()).isEqualTo(Versions.V1);
    // One extra round trip compared with a client that starts with the right version.
    Simulation direct = sim(server, server, List.of(new Call(0, 100, 100)));
    direct.runUntil(direct::allCallsDone, 10_000_000_000L);
    assertThat(calls.get(0).doneNs()).isBetween(direct.nowNs() + 2 * DELAY,
        direct.nowNs() + 2 * DELAY + 5_000_000L);
  }

  @Test
  void clientWithNoCommonVersionFailsNamingBothLists() {
    ConnectionConfig client = ConnectionConfig.builder().versions(Versions.V2).build();
    ConnectionConfig server = ConnectionConfig.builder().versions(Versions.V1).build();
    Simulation s = sim(client, server, List.of(new Call(0, 100, 100)));
    s.runUntil(s::allCallsDone, 5_000_000_000L);
    assertThat(s.client().closeError()).isEqualTo(TransportError.VERSION_NEGOTIATION_ERROR);
    assertThat(s.fatal()).contains("0x544e0002").contains("0x544e0001");
    assertThat(s.server()).isNull(); // the server kept no state
  }

  @Test
  void transportParametersCarryTheRpcVersions() {
    ConnectionConfig client = ConnectionConfig.builder().rpcVersions(1, 2).build();
    ConnectionConfig server = ConnectionConfig.builder().rpcVersions(2, 3).build();
    Simulation s = sim(client, server, List.of(new Call(0, 100, 100)));
    assertThat(s.runUntil(s::allCallsDone, 5_000_000_000L)).isTrue();
    assertThat(s.client().peerRpcVersions()).containsExactly(2, 3);
    assertThat(s.server().peerRpcVersions()).containsExactly(1, 2);
  }

  @Test
  void serverFollowsTheClientToItsNewAddressWithoutFailingTheCall() {
    RunResult r = SimRun.run("mobile", dev.tern.transport.udp.sim.Scenario.FEED, 11,
        ConnectionConfig.defaults(), 1_500_000_000L);
    assertThat(r.failure).as(r.line()).isNull();

    List<Call> calls = List.of(new Call(0, 100, 400_000));
    Simulation s = sim(ConnectionConfig.defaults(), ConnectionConfig.defaults(), calls);
    s.rebindAt(300_000_000L); // mid-download: the server's packets to the old address are lost
    assertThat(s.runUntil(s::allCallsDone, 30_000_000_000L)).as(String.valueOf(s.fatal()))
        .isTrue();
    assertThat(s.server().stats().pathChanges).isEqualTo(1);
    assertThat(s.server().currentPathId()).isEqualTo(1);
  }

  @Test
  void receiveTimestampsFlowWhenAskedFor() {
    ConnectionConfig c = ConnectionConfig.builder().wantReceiveTimestamps(true).build();
    List<Call> calls = List.of(new Call(0, 50_000, 50_000));
    Simulation s = sim(c, c, calls);
    assertThat(s.runUntil(s::allCallsDone, 10_000_000_000L)).as(String.valueOf(s.fatal()))
        .isTrue();
    assertThat(s.client().stats().malformedDropped + s.server().stats().malformedDropped).isZero();
    assertThat(s.client().stats().timestampedAcksReceived).isPositive();
    assertThat(s.server().stats().timestampedAcksReceived).isPositive();

    Simulation plain = sim(ConnectionConfig.defaults(), ConnectionConfig.defaults(),
        List.of(new Call(0, 50_000, 50_000)));
    assertThat(plain.runUntil(plain::allCallsDone, 10_000_000_000L)).isTrue();
    assertThat(plain.client().stats().timestampedAcksReceived).isZero();
  }

  @Test
  void streamLimitHoldsExtraCallsBackUntilStreamsClose() {
    ConnectionConfig server = ConnectionConfig.builder()
        .limits(new StreamLimits(1 << 20, 64 << 10, 2, 64 << 10)).build();
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      calls.add(new Call(0, 2000, 2000));
    }
    Simulation s = sim(ConnectionConfig.defaults(), server, calls);
    assertThat(s.runUntil(s::allCallsDone, 20_000_000_000L)).as(String.valueOf(s.fatal())).isTrue();
    assertThat(s.runUntil(s::quiescent, s.nowNs() + 5_000_000_000L)).isTrue();
    assertThat(s.client().streamCount()).isZero();
    assertThat(s.server().streamCount()).isZero();
  }

  @Test
  void idleConnectionsCloseSilently() {
    ConnectionConfig c = ConnectionConfig.builder().idleTimeoutMs(2000).build();
    Simulation s = sim(c, c, List.of(new Call(0, 100, 100)));
    assertThat(s.runUntil(s::allCallsDone, 5_000_000_000L)).isTrue();
    s.stopOnFatal(false); // the idle close is what this test waits for
    s.runUntil(() -> s.client().state() == ConnectionState.CLOSED
        && s.server().state() == ConnectionState.CLOSED, 60_000_000_000L);
    assertThat(s.client().closeError()).isEqualTo(TransportError.IDLE_TIMEOUT);
    assertThat(s.server().closeError()).isEqualTo(TransportError.IDLE_TIMEOUT);
  }

  @Test
  void garbageIsDroppedAndCountedAndTheConnectionCarriesOn() {
    Simulation s = sim(ConnectionConfig.defaults(), ConnectionConfig.defaults(),
        List.of(new Call(0, 100, 100), new Call(2_000_000_000L, 100, 100)));
    s.runUntil(() -> s.server() != null && s.client().state() == ConnectionState.ESTABLISHED,
        5_000_000_000L);
    Random r = new Random(1);
    byte[] junk = new byte[1400];
    for (int i = 0; i < 10_000; i++) {
      r.nextBytes(junk);
      int n = 1 + r.nextInt(junk.length);
      if (i % 2 == 0) {
        junk[0] = (byte) (0x40 | (junk[0] & 3)); // a short header ...
        byte[] cid = new byte[8];
        for (int k = 0; k < 8; k++) {
          cid[k] = s.client().localConnectionId().byteAt(k);
        }
        System.arraycopy(cid, 0, junk, 1, 8); // ... for the right connection
      }
      s.client().onDatagram(ByteBuffer.wrap(junk, 0, n), s.nowNs());
    }
    ConnectionStats st = s.client().stats();
    assertThat(st.malformedDropped + st.packetsFailedToOpen + st.unroutableDropped
        + st.duplicatesDropped).isEqualTo(10_000);
    assertThat(s.runUntil(s::allCallsDone, 10_000_000_000L)).as(String.valueOf(s.fatal()))
        .isTrue();
  }
}
