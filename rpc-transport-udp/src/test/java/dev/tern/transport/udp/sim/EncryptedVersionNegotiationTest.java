package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.Versions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Version negotiation between encrypted versions (docs/protocol.md §3), with the encrypted test
 * version {@code 0x544eff03} standing for a version 3: version 2's wire format and Noise
 * handshake under another number, the number in the Noise prologue. In the simulator over a
 * clean 10 Mbit/s path with 25 ms each way (an RTT of 50 ms).
 */
@Timeout(60)
class EncryptedVersionNegotiationTest {
  static final int V3 = Versions.ENCRYPTED_TEST_FIRST | 3;
  private static final long DELAY = 25_000_000L;
  private static final long RTT = 2 * DELAY;
  /** Two 1,200-byte datagrams (the refused INITIAL, the answer) at 10 Mbit/s: under 2 ms. */
  private static final long SERIALISATION = 2_000_000L;

  /**
   * Version Negotiation packets a refused first flight gets: one for the INITIAL and one for its
   * copy (docs/protocol.md §4.1), which leaves 5 ms later, before the answer arrives.
   */
  private static final long ANSWERS_TO_A_FIRST_FLIGHT = 2;

  private static Simulation sim(ConnectionConfig client, ConnectionConfig server, Call call) {
    return new Simulation(3, new ScriptedChannel(DELAY, 10_000_000, null),
        new ScriptedChannel(DELAY, 10_000_000, null), client, server, List.of(call));
  }

  private static ConnectionConfig versions(int... v) {
    return ConnectionConfig.builder().versions(v).build();
  }

  private static long firstCall(ConnectionConfig client, ConnectionConfig server,
      int expectedVersion, long expectedNegotiations) {
    Call call = new Call(0, 100, 100);
    Simulation s = sim(client, server, call);
    assertThat(s.runUntil(s::allCallsDone, 10_000_000_000L)).as(String.valueOf(s.fatal()))
        .isTrue();
    assertThat(s.client().version()).isEqualTo(expectedVersion);
    assertThat(s.server().version()).isEqualTo(expectedVersion);
    assertThat(Versions.isEncrypted(expectedVersion)).isTrue();
    assertThat(s.client().peerStaticKey()).as("the Noise handshake ran").isNotNull();
    assertThat(s.demux.versionNegotiationsSent()).isEqualTo(expectedNegotiations);
    return call.doneNs() - call.startNs;
  }

  @Test
  void aClientOfVersions3And2ConnectsToAVersion2ServerOnVersion2InOneExtraRoundTrip() {
    long direct = firstCall(versions(Versions.V2), versions(Versions.V2), Versions.V2, 0);
    long negotiated = firstCall(versions(V3, Versions.V2), versions(Versions.V2), Versions.V2,
        ANSWERS_TO_A_FIRST_FLIGHT);
    assertThat(negotiated - direct).as("one extra round trip, %d ns", negotiated - direct)
        .isBetween(RTT, RTT + SERIALISATION);
  }

  @Test
  void aServerOfBothUsesVersion3WithoutNegotiation() {
    long direct = firstCall(versions(Versions.V2), versions(Versions.V2), Versions.V2, 0);
    long v3 = firstCall(versions(V3, Versions.V2), versions(V3, Versions.V2), V3, 0);
    assertThat(v3).isEqualTo(direct);
  }

  @Test
  void aClientOfVersion3AloneFailsAgainstAVersion2ServerNamingBothLists() {
    Simulation s = sim(versions(V3), versions(Versions.V2), new Call(0, 100, 100));
    s.runUntil(s::allCallsDone, 5_000_000_000L);
    assertThat(s.client().closeError()).isEqualTo(TransportError.VERSION_NEGOTIATION_ERROR);
    assertThat(s.fatal()).contains("ours [0x544eff03]").contains("server's [0x544e0002]");
    assertThat(s.server()).as("the server kept no state").isNull();
    assertThat(s.demux.versionNegotiationsSent()).isEqualTo(ANSWERS_TO_A_FIRST_FLIGHT);
  }
}
