package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.Versions;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The server's connection-ID table against IDs a client chooses, and where the values an
 * attacker must not predict come from (RFC 9000 §5.1: connection IDs must not be linkable or
 * guessable; §8.2: PATH_CHALLENGE data must be unpredictable).
 */
class ConnectionIdTableTest {

  private static ConnectionId cid(String hex) {
    return ConnectionId.of(HexFormat.of().parseHex(hex));
  }

  @Test
  void destinationIdsSharingAPrefixOpenSeparateConnections() {
    ServerDemux demux = new ServerDemux(TestKeys.withKeys(ConnectionConfig.defaults()),
        c -> new ConnectionListener() {}, 8);
    // Two 20-byte Destination IDs with the same first 8 bytes, from two clients.
    ConnectionId d1 = cid("0102030405060708" + "aaaaaaaaaaaaaaaaaaaaaaaa");
    ConnectionId d2 = cid("0102030405060708" + "bbbbbbbbbbbbbbbbbbbbbbbb");
    ConnectionId s1 = cid("1111111111111111");
    ConnectionId s2 = cid("2222222222222222");
    Connection c1 = demux.onDatagram(Forge.initial(Versions.V2, d1, s1, 0,
        Forge.clientHello(s1, Versions.V2)), 0, 0, ByteBuffer.allocate(2048));
    Connection c2 = demux.onDatagram(Forge.initial(Versions.V2, d2, s2, 0,
        Forge.clientHello(s2, Versions.V2)), 0, 1, ByteBuffer.allocate(2048));
    assertThat(c1).isNotNull();
    assertThat(c2).isNotNull().isNotSameAs(c1);
    assertThat(demux.connections()).hasSize(2);
    // A repeat of each INITIAL reaches its own connection.
    assertThat(demux.onDatagram(Forge.initial(Versions.V2, d2, s2, 1,
        Forge.clientHello(s2, Versions.V2)), 0, 1, ByteBuffer.allocate(2048))).isSameAs(c2);
    assertThat(demux.onDatagram(Forge.initial(Versions.V2, d1, s1, 1,
        Forge.clientHello(s1, Versions.V2)), 0, 0, ByteBuffer.allocate(2048))).isSameAs(c1);
  }

  @Test
  void theDefaultSourceIsCryptographicAndOnlyAnInjectedOneIsSeeded() {
    assertThat(ConnectionConfig.defaults().usesSecureRandom()).isTrue();
    ConnectionConfig seeded = Forge.seeded(ConnectionConfig.defaults(), 7);
    assertThat(seeded.usesSecureRandom()).isFalse();
    // A seeded source replays: the simulator depends on it.
    assertThat(Connection.client(Forge.seeded(ConnectionConfig.defaults(), 7),
        new ConnectionListener() {}).localConnectionId())
        .isEqualTo(Connection.client(Forge.seeded(ConnectionConfig.defaults(), 7),
            new ConnectionListener() {}).localConnectionId());
    // The default does not: two connections never share an ID (2^-64 odds of a false failure).
    ConnectionConfig secure = TestKeys.withKeys(ConnectionConfig.defaults());
    assertThat(Connection.client(secure, new ConnectionListener() {}).localConnectionId())
        .isNotEqualTo(Connection.client(secure, new ConnectionListener() {}).localConnectionId());
  }
}
