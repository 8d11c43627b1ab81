package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.handshake.HandshakeError;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Client authentication through the connection's configuration (docs/udp-crypto.md §5.2): a
 * client with its own static key proves it in the ClientHello (Noise IK's {@code s}), the server
 * admits or refuses it before any stream, and both sides learn the key the peer proved.
 */
@Timeout(60)
class ClientAuthenticationTest {
  private static final long MS = 1_000_000L;
  private static final byte[] CLIENT_KEY = HexFormat.of().parseHex(
      "58a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a15a");
  private static final byte[] OTHER_CLIENT_KEY = HexFormat.of().parseHex(
      "60b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b26b");

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;

  private static byte[] publicKey(byte[] privateKey) {
    return CryptoProviders.auto().x25519().publicKey(privateKey);
  }

  private static ConnectionConfig client(byte[] key) {
    return Forge.seeded(ConnectionConfig.builder().clientStaticKey(key).build(), 1);
  }

  private static ConnectionConfig server(ConnectionConfig.Builder b) {
    return Forge.seeded(b.build(), 2);
  }

  @Test
  void anAdmittedClientConnectsAndTheServerLearnsItsKey() {
    Connection[] pair = connect(client(CLIENT_KEY), server(ConnectionConfig.builder()
        .allowedClientKeys(List.of(publicKey(OTHER_CLIENT_KEY), publicKey(CLIENT_KEY)))));
    assertThat(pair[0].state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(pair[1].state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(pair[1].peerStaticKey()).isEqualTo(publicKey(CLIENT_KEY));
    assertThat(pair[0].peerStaticKey()).isEqualTo(TestKeys.pinned().publicKey());
    // And a call runs over it.
    Stream s = pair[0].openStream();
    pair[0].write(s, ByteBuffer.wrap(new byte[] {1, 2, 3}));
    pair[0].finish(s);
    run(pair[0], pair[1]);
    assertThat(pair[1].read(pair[1].stream(s.id()), ByteBuffer.allocate(16))).isEqualTo(3);
  }

  @Test
  void anAnonymousClientUsesAFreshKeyPerConnection() {
    ConnectionConfig anonymous = Forge.seeded(ConnectionConfig.defaults(), 1);
    ConnectionConfig server = server(ConnectionConfig.builder());
    byte[] first = connect(anonymous, server)[1].peerStaticKey();
    byte[] second = connect(Forge.seeded(ConnectionConfig.defaults(), 3), server)[1]
        .peerStaticKey();
    assertThat(first).hasSize(32);
    assertThat(second).hasSize(32).isNotEqualTo(first);
    // With its own key, the same client is the same key on every connection.
    assertThat(connect(client(CLIENT_KEY), server)[1].peerStaticKey())
        .isEqualTo(connect(Forge.seeded(ConnectionConfig.builder().clientStaticKey(CLIENT_KEY)
            .build(), 7), server)[1].peerStaticKey());
  }

  @Test
  void aClientTheServerDoesNotAdmitIsRefusedBeforeAnyStream() {
    ConnectionConfig server = server(ConnectionConfig.builder()
        .allowedClientKeys(List.of(publicKey(CLIENT_KEY))));
    for (ConnectionConfig refused : List.of(client(OTHER_CLIENT_KEY),
        Forge.seeded(ConnectionConfig.defaults(), 1))) {
      AtomicInteger streamsAtServer = new AtomicInteger();
      Connection[] pair = connect(refused, server, streamsAtServer);
      for (Connection c : pair) {
        assertThat(c.state()).as("%s", c).isIn(ConnectionState.CLOSING,
            ConnectionState.DRAINING, ConnectionState.CLOSED);
        assertThat(c.closeError()).as("%s", c).isEqualTo(TransportError.CRYPTO_ERROR);
        assertThat(c.closeCode()).as("%s", c)
            .isEqualTo(HandshakeError.CLIENT_NOT_ALLOWED.wireCode());
      }
      assertThat(pair[0].openStream()).isNull();
      assertThat(streamsAtServer).hasValue(0);
    }
  }

  /**
   * An endpoint numbers its paths from 1 (nio.PathTable): a refused connection never processes
   * a packet, so its path must be set when it is created, or its CONNECTION_CLOSE has nowhere to
   * go and the client learns nothing until its handshake timeout.
   */
  @Test
  void theRefusalGoesBackOnThePathTheClientCameFrom() {
    ConnectionConfig server = server(ConnectionConfig.builder()
        .allowedClientKeys(List.of(publicKey(CLIENT_KEY))));
    Connection client = Connection.client(client(OTHER_CLIENT_KEY), new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(server, c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection refused = demux.onDatagram(wire, now, 7, ByteBuffer.allocate(2048));
    assertThat(refused.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(refused.currentPathId()).isEqualTo(7);
    wire.clear();
    assertThat(refused.pollDatagram(wire, now)).isPositive();
    wire.flip();
    client.onDatagram(wire, now, 0);
    assertThat(client.closeError()).isEqualTo(TransportError.CRYPTO_ERROR);
    assertThat(client.closeCode()).isEqualTo(HandshakeError.CLIENT_NOT_ALLOWED.wireCode());
    // An admitted client's first packet is no change of path either. (Another seed: the same
    // one would give the same connection IDs, which the demux routes to the refused connection.)
    Connection admitted = Connection.client(Forge.seeded(ConnectionConfig.builder()
        .clientStaticKey(CLIENT_KEY).build(), 3), new ConnectionListener() {});
    wire.clear();
    admitted.pollDatagram(wire, now);
    wire.flip();
    Connection accepted = demux.onDatagram(wire, now, 8, ByteBuffer.allocate(2048));
    for (int i = 0; i < 20; i++) { // as Forge.exchange, but every datagram on path 8
      now += MS;
      for (boolean any = true; any; ) {
        any = false;
        wire.clear();
        if (admitted.pollDatagram(wire, now) > 0) {
          wire.flip();
          accepted.onDatagram(wire, now, 8);
          any = true;
        }
        wire.clear();
        if (accepted.pollDatagram(wire, now) > 0) {
          wire.flip();
          admitted.onDatagram(wire, now, 0);
          any = true;
        }
      }
    }
    assertThat(accepted.state()).as("%s %s", accepted.closeError(), accepted.closeCode())
        .isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(accepted.currentPathId()).isEqualTo(8);
    assertThat(accepted.stats().pathChanges).isZero();
  }

  @Test
  void thePredicateSeesACopyOfTheProvedKey() {
    byte[][] seen = new byte[1][];
    ConnectionConfig server = server(ConnectionConfig.builder().clientAllowed(k -> {
      seen[0] = k;
      k[0] ^= 1; // a predicate that writes must not change what the connection reports
      return true;
    }));
    Connection[] pair = connect(client(CLIENT_KEY), server);
    assertThat(pair[1].state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(seen[0]).isNotNull();
    assertThat(pair[1].peerStaticKey()).isEqualTo(publicKey(CLIENT_KEY));
  }

  @Test
  void badKeysAreRefusedNamingTheSetting() {
    assertThatThrownBy(() -> ConnectionConfig.builder().clientStaticKey(new byte[31]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clientStaticKey")
        .hasMessageContaining("31 bytes");
    assertThatThrownBy(() -> ConnectionConfig.builder().allowedClientKeys(List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowedClientKeys");
    assertThatThrownBy(() -> ConnectionConfig.builder()
        .allowedClientKeys(List.of(publicKey(CLIENT_KEY), new byte[5])))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowedClientKeys[1]");
  }

  private Connection[] connect(ConnectionConfig clientConfig, ConnectionConfig serverConfig) {
    return connect(clientConfig, serverConfig, new AtomicInteger());
  }

  private Connection[] connect(ConnectionConfig clientConfig, ConnectionConfig serverConfig,
      AtomicInteger streamsAtServer) {
    Connection client = Connection.client(clientConfig, new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(serverConfig, c -> new ConnectionListener() {
      @Override
      public void onStreamOpened(Stream s) {
        streamsAtServer.incrementAndGet();
      }
    }, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    assertThat(server).isNotNull();
    run(client, server);
    return new Connection[] {client, server};
  }

  private void run(Connection client, Connection server) {
    for (int i = 0; i < 20; i++) {
      now += MS;
      Forge.exchange(client, server, wire, now);
    }
  }
}
