package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Handshake rules a server must hold a client to, and the client to the server: the
 * initial_source_connection_id check (RFC 9000 §7.3), when each side's handshake is confirmed
 * (RFC 9001 §4.1.2, docs/protocol.md §4), and the peer's max_udp_payload_size (RFC 9000 §18.2).
 */
@Timeout(60)
class HandshakeRulesTest {
  private static final long MS = 1_000_000L;
  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;

  private static ConnectionId cid(String hex) {
    return ConnectionId.of(HexFormat.of().parseHex(hex));
  }

  @Test
  void aClientHelloNamingAnotherSourceIdIsATransportParameterError() {
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 1),
        c -> new ConnectionListener() {}, 4);
    ConnectionId headerScid = cid("1112131415161718");
    TransportParameters hello = Forge.clientHello(cid("2122232425262728"), Versions.V2);
    Connection server = demux.onDatagram(
        Forge.initial(Versions.V2, cid("0102030405060708"), headerScid, 0, hello), now, 0,
        ByteBuffer.allocate(2048));
    assertThat(server).isNotNull();
    assertThat(server.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(server.closeError()).isEqualTo(TransportError.TRANSPORT_PARAMETER_ERROR);
  }

  @Test
  void theServerConfirmsOnTheClientsFirstOneRttPacketNotOnTheClientHello() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.handshakeConfirmed).isFalse();
    assertThat(server.loss.isHandshakeConfirmed()).isFalse();
    // The ServerHello reaches the client, which then sends 1-RTT packets.
    for (int i = 0; i < 20; i++) {
      now += MS;
      exchange(client, server);
    }
    assertThat(server.peerEstablished).isTrue();
    assertThat(server.handshakeConfirmed).isTrue();
    assertThat(server.loss.isHandshakeConfirmed()).isTrue();
    assertThat(client.handshakeConfirmed).isTrue(); // on HANDSHAKE_DONE
  }

  @Test
  void noDatagramExceedsThePeersMaxUdpPayloadSizeAndProbingStopsThere() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    // The server accepts at most 1250-byte datagrams and says so in max_udp_payload_size.
    ConnectionConfig serverConfig = ConnectionConfig.builder().maxDatagramBytes(1200)
        .maxProbedDatagramBytes(1250).build();
    ServerDemux demux = new ServerDemux(Forge.seeded(serverConfig, 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    int largest = 0;
    Stream s = null;
    byte[] chunk = new byte[20_000];
    for (int i = 0; i < 2_000; i++) {
      now += MS;
      if (s == null) {
        s = client.openStream();
      }
      if (s != null) {
        client.write(s, ByteBuffer.wrap(chunk));
      }
      largest = Math.max(largest, exchange(client, server));
      if (client.nextTimeoutNs() <= now) {
        client.onTimeout(now);
      }
      if (server.nextTimeoutNs() <= now) {
        server.onTimeout(now);
      }
    }
    assertThat(server.stats().bytesReceived).isGreaterThan(1_000_000);
    assertThat(largest).isBetween(1200, 1250);
    assertThat(client.maxDatagramBytes()).isLessThanOrEqualTo(1250);
  }

  /** Moves every datagram both ways; returns the largest the client sent. */
  private int exchange(Connection client, Connection server) {
    return Forge.exchange(client, server, wire, now);
  }
}
