package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.MaxDataFrame;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.Versions;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Packet-number spaces (RFC 9000 §12.3): Initial and 1-RTT packets numbered apart, ACKs and
 * loss detection per space, the frames an INITIAL may carry (RFC 9000 §17.2.2), and the Initial
 * space discarded once both sides are past it (RFC 9001 §4.9.1).
 */
@Timeout(60)
class PacketSpacesTest {
  private static final long MS = 1_000_000L;
  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;

  private static ConnectionId cid(String hex) {
    return ConnectionId.of(HexFormat.of().parseHex(hex));
  }

  @Test
  void eachSpaceNumbersItsPacketsFromZeroAndTheInitialSpaceIsDiscardedOnBothSides() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    Connection server = handshake(client);
    // The client sent one INITIAL (packet 0 of its Initial space) and then 1-RTT packets from 0.
    assertThat(client.initialSpace.log.nextPacketNumber()).isEqualTo(1);
    assertThat(client.appSpace.log.nextPacketNumber()).isBetween(1L, 3L);
    assertThat(server.initialSpace.log.nextPacketNumber()).isEqualTo(1);
    assertThat(server.appSpace.log.nextPacketNumber()).isPositive();
    assertThat(client.initialSpace.discarded()).isTrue();
    assertThat(server.initialSpace.discarded()).isTrue();
    // Nothing of the Initial space is left in flight, and no probe timer waits on it.
    assertThat(server.initialSpace.loss.ackElicitingInFlight()).isZero();
    assertThat(server.initialSpace.loss.timerNs()).isEqualTo(Long.MAX_VALUE);
    assertThat(client.stats().ptoCount + server.stats().ptoCount).isZero();
  }

  @Test
  void anInitialAfterTheSpaceIsDiscardedIsDroppedAndCounted() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    Connection server = handshake(client);
    long received = server.stats().packetsReceived;
    server.onDatagram(Forge.initial(Versions.V2, server.localConnectionId(),
        client.localConnectionId(), 5, b -> b.put((byte) 0x01)), now, 0);
    assertThat(server.stats().discardedSpaceDropped).isEqualTo(1);
    assertThat(server.stats().packetsReceived).isEqualTo(received);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  @Test
  void anInitialWithAFrameInitialsMayNotCarryIsDroppedWholeAndCounted() {
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    ConnectionId scid = cid("1112131415161718");
    TransportParameters hello = Forge.clientHello(scid, Versions.V2);
    Connection server = demux.onDatagram(
        Forge.initial(Versions.V2, cid("0102030405060708"), scid, 0, hello), now, 0,
        ByteBuffer.allocate(2048));
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    long received = server.stats().packetsReceived;
    // A PING (allowed) followed by MAX_DATA (not allowed in an INITIAL): the whole packet goes,
    // the PING included, and nothing is acknowledged for it.
    server.onDatagram(Forge.initial(Versions.V2, cid("0102030405060708"), scid, 1, b -> {
      b.put((byte) 0x01);
      MaxDataFrame.encode(b, 1 << 30);
    }), now, 0);
    assertThat(server.stats().forbiddenFramesDropped).isEqualTo(1);
    assertThat(server.stats().packetsReceived).isEqualTo(received);
    assertThat(server.initialSpace.acks.largestReceived()).isZero();
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    // The same packet number with allowed frames only is then accepted (it was never received).
    server.onDatagram(Forge.initial(Versions.V2, cid("0102030405060708"), scid, 1,
        b -> b.put((byte) 0x01)), now, 0);
    assertThat(server.stats().packetsReceived).isEqualTo(received + 1);
    assertThat(server.initialSpace.acks.largestReceived()).isEqualTo(1);
  }

  @Test
  void anAckInOneSpaceAcknowledgesOnlyThatSpacesPackets() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    wire.clear();
    assertThat(server.pollDatagram(wire, now)).isGreaterThanOrEqualTo(1200);
    client.onDatagram(wire.flip(), now); // the client has its 1-RTT keys; it is not polled
    // The first flight: the ServerHello (Initial packet 0) and HANDSHAKE_DONE (1-RTT packet 0).
    assertThat(server.initialSpace.loss.ackElicitingInFlight()).isEqualTo(1);
    assertThat(server.appSpace.loss.ackElicitingInFlight()).isEqualTo(1);
    // A 1-RTT ACK of packet 0 acknowledges HANDSHAKE_DONE, not the ServerHello.
    now += 10 * MS;
    server.onDatagram(Forge.oneRtt(client, server.localConnectionId(), 0,
        b -> Forge.ack(b, 0, 0, 0)), now, 0);
    assertThat(server.appSpace.loss.ackElicitingInFlight()).isZero();
    // The 1-RTT packet also showed that the client has the ServerHello: the Initial space is
    // discarded, its packet leaves the flight without being declared lost.
    assertThat(server.initialSpace.discarded()).isTrue();
    assertThat(server.initialSpace.loss.packetsLost()).isZero();
    assertThat(server.flight.bytesInFlight()).isZero();
  }

  private Connection handshake(Connection client) {
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    for (int i = 0; i < 30; i++) {
      now += MS;
      exchange(client, server);
      if (client.nextTimeoutNs() <= now) {
        client.onTimeout(now);
      }
      if (server.nextTimeoutNs() <= now) {
        server.onTimeout(now);
      }
    }
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    return server;
  }

  private void exchange(Connection client, Connection server) {
    Forge.exchange(client, server, wire, now);
  }
}
