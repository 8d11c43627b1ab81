package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.handshake.HandshakeError;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Noise handshake on the wire (docs/protocol.md §9.3): configuration errors, both crypto
 * providers and both ciphers, server key rotation, and handshake messages an on-path attacker
 * rewrote, which never complete and close with the CRYPTO_ERROR code of RFC 9001 §4.8.
 */
@Timeout(60)
class EncryptedHandshakeTest {
  private static final long MS = 1_000_000L;
  private static final byte[] OTHER_PRIVATE_KEY = HexFormat.of().parseHex(
      "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec07f");

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;

  private static PinnedServerKey pin(int id, byte[] privateKey) {
    return new PinnedServerKey(id, CryptoProviders.auto().x25519().publicKey(privateKey));
  }

  @Test
  void aClientWithoutAPinnedServerKeyIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> Connection.client(ConnectionConfig.defaults(),
        new ConnectionListener() {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pinnedServerKeys").hasMessageContaining("0x544e0002");
  }

  @Test
  void aServerWithoutAStaticKeyIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> new ServerDemux(ConnectionConfig.defaults(),
        c -> new ConnectionListener() {}, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serverStaticKeys");
  }

  @Test
  void aPlaintextOnlyConfigurationNeedsNoKeys() {
    ConnectionConfig v1 = ConnectionConfig.builder().versions(Versions.V1).build();
    assertThat(Connection.client(v1, new ConnectionListener() {}).version())
        .isEqualTo(Versions.V1);
    assertThat(new ServerDemux(v1, c -> new ConnectionListener() {}, 1).connections()).isEmpty();
  }

  @Test
  void duplicateServerKeyIdsAndEmptyPinsAreRefused() {
    assertThatThrownBy(() -> ConnectionConfig.builder().serverStaticKeys(TestKeys.serverKey(),
        new ServerStaticKey(TestKeys.KEY_ID, OTHER_PRIVATE_KEY)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key id 1 twice");
    assertThatThrownBy(() -> ConnectionConfig.builder().pinnedServerKeys())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pinnedServerKeys");
  }

  /** The handshake and a call over it, with one provider (alone) and one cipher. */
  @ParameterizedTest
  @CsvSource({"jdk, AES_256_GCM", "jdk, CHACHA20_POLY1305", "bc, AES_256_GCM",
      "bc, CHACHA20_POLY1305"})
  void theHandshakeAndACallWorkWithEachProviderAndCipher(String provider, AeadAlgorithm cipher) {
    ConnectionConfig config = ConnectionConfig.builder()
        .cryptoProvider(CryptoProviders.byName(provider)).handshakeCipher(cipher).build();
    List<byte[]> onTheWire = new ArrayList<>();
    Connection[] pair = connect(Forge.seeded(config, 1), Forge.seeded(config, 2), onTheWire);
    Connection client = pair[0];
    Connection server = pair[1];
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(client.keys.oneRtt).isNotNull();
    byte[] secret = "the request nobody on the path may read".getBytes(StandardCharsets.UTF_8);
    Stream s = client.openStream();
    client.write(s, ByteBuffer.wrap(secret));
    client.finish(s);
    for (int i = 0; i < 10; i++) {
      now += MS;
      exchange(client, server, onTheWire);
    }
    ByteBuffer got = ByteBuffer.allocate(256);
    assertThat(server.read(server.stream(s.id()), got)).isEqualTo(secret.length);
    assertThat(java.util.Arrays.copyOf(got.array(), secret.length)).isEqualTo(secret);
    // Neither the request nor the transport parameters' connection IDs appear in clear.
    String marker = "the request";
    for (byte[] d : onTheWire) {
      assertThat(new String(d, StandardCharsets.ISO_8859_1)).doesNotContain(marker);
    }
    assertThat(client.stats().packetsFailedToOpen + server.stats().packetsFailedToOpen).isZero();
  }

  @Test
  void aServerHoldingTheCurrentAndThePreviousKeyAnswersClientsPinningEither() {
    ServerStaticKey previous = TestKeys.serverKey();
    ServerStaticKey current = new ServerStaticKey(2, OTHER_PRIVATE_KEY);
    ConnectionConfig server = ConnectionConfig.defaults().withServerStaticKeys(current, previous);
    for (PinnedServerKey pinned : List.of(pin(2, OTHER_PRIVATE_KEY), TestKeys.pinned())) {
      ConnectionConfig client = ConnectionConfig.defaults().withPinnedServerKeys(pinned);
      Connection[] pair = connect(Forge.seeded(client, 1), Forge.seeded(server, 2), null);
      assertThat(pair[0].state()).as("pinned key %d", pinned.keyId())
          .isEqualTo(ConnectionState.ESTABLISHED);
    }
  }

  @Test
  void aClientPinningAnotherKeyUnderTheServersIdNeverCompletes() {
    ConnectionConfig client = ConnectionConfig.defaults()
        .withPinnedServerKeys(pin(TestKeys.KEY_ID, OTHER_PRIVATE_KEY));
    Connection[] pair = connect(Forge.seeded(client, 1),
        Forge.seeded(ConnectionConfig.defaults(), 2), null);
    assertFailedWith(pair, HandshakeError.AUTHENTICATION_FAILED);
  }

  @Test
  void aClientPinningAnIdTheServerDoesNotHoldIsToldSo() {
    ConnectionConfig client = ConnectionConfig.defaults()
        .withPinnedServerKeys(pin(9, OTHER_PRIVATE_KEY));
    Connection[] pair = connect(Forge.seeded(client, 1),
        Forge.seeded(ConnectionConfig.defaults(), 2), null);
    assertFailedWith(pair, HandshakeError.UNKNOWN_SERVER_KEY);
  }

  /**
   * A bit flipped in the ClientHello's header (cipher, server key id: bound by the Noise
   * prologue too), its ephemeral key, its encrypted static key or its encrypted parameters.
   */
  @ParameterizedTest
  @CsvSource({"1, MALFORMED_MESSAGE", "2, UNKNOWN_SERVER_KEY", "3, AUTHENTICATION_FAILED",
      "20, AUTHENTICATION_FAILED", "60, AUTHENTICATION_FAILED", "100, AUTHENTICATION_FAILED"})
  void aClientHelloRewrittenOnThePathNeverCompletes(int index, HandshakeError error) {
    ConnectionConfig config = Forge.seeded(ConnectionConfig.defaults(), 1);
    Connection client = Connection.client(config, new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    // The attacker opens the INITIAL as the server would, alters the ClientHello, seals again.
    Tamper.rewriteInitial(wire, HandshakeCrypto.initialKeys(config.cryptoProvider,
        client.originalDcid, false), PeerKeys.clientInitialKeys(config, client.originalDcid),
        payload -> Tamper.flipHandshakeByte(payload, index));
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    assertThat(server).as("the INITIAL itself opens: only the Noise message is wrong").isNotNull();
    run(client, server);
    assertThat(server.handshake.peer()).as("no parameters were taken from it").isNull();
    assertFailedWith(new Connection[] {client, server}, error);
  }

  @Test
  void aServerHelloRewrittenOnThePathNeverCompletes() {
    ConnectionConfig config = Forge.seeded(ConnectionConfig.defaults(), 1);
    Connection client = Connection.client(config, new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    wire.clear();
    server.pollDatagram(wire, now);
    wire.flip();
    Tamper.rewriteInitial(wire, HandshakeCrypto.initialKeys(config.cryptoProvider,
        client.originalDcid, true), HandshakeCrypto.initialKeys(config.cryptoProvider,
        client.originalDcid, false), payload -> Tamper.flipHandshakeByte(payload, 40));
    client.onDatagram(wire, now, 0);
    assertThat(client.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(client.closeError()).isEqualTo(TransportError.CRYPTO_ERROR);
    assertThat(client.closeCode()).isEqualTo(HandshakeError.AUTHENTICATION_FAILED.wireCode());
    assertThat(client.keys.oneRtt).as("no 1-RTT keys from a forged ServerHello").isNull();
    run(client, server);
    assertThat(server.state()).isNotEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.closeCode()).isEqualTo(HandshakeError.AUTHENTICATION_FAILED.wireCode());
  }

  /** Both ends failed: the one that read the bad message closed with its code, the other heard. */
  private static void assertFailedWith(Connection[] pair, HandshakeError error) {
    for (Connection c : pair) {
      assertThat(c.state()).as("%s", c).isIn(ConnectionState.CLOSING, ConnectionState.DRAINING,
          ConnectionState.CLOSED);
      assertThat(c.closeError()).as("%s", c).isEqualTo(TransportError.CRYPTO_ERROR);
      assertThat(c.closeCode()).as("%s", c).isEqualTo(error.wireCode());
    }
  }

  private Connection[] connect(ConnectionConfig clientConfig, ConnectionConfig serverConfig,
      List<byte[]> onTheWire) {
    Connection client = Connection.client(clientConfig, new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(serverConfig, c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    if (onTheWire != null) {
      onTheWire.add(copy(wire));
    }
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    for (int i = 0; i < 20; i++) {
      now += MS;
      exchange(client, server, onTheWire);
    }
    return new Connection[] {client, server};
  }

  private void run(Connection client, Connection server) {
    for (int i = 0; i < 20; i++) {
      now += MS;
      exchange(client, server, null);
    }
  }

  /** Like Forge.exchange, keeping a copy of every datagram as it was on the wire. */
  private void exchange(Connection client, Connection server, List<byte[]> onTheWire) {
    boolean any = true;
    while (any) {
      any = false;
      wire.clear();
      if (client.pollDatagram(wire, now) > 0) {
        wire.flip();
        if (onTheWire != null) {
          onTheWire.add(copy(wire));
        }
        server.onDatagram(wire, now, 0);
        any = true;
      }
      wire.clear();
      if (server.pollDatagram(wire, now) > 0) {
        wire.flip();
        if (onTheWire != null) {
          onTheWire.add(copy(wire));
        }
        client.onDatagram(wire, now, 0);
        any = true;
      }
    }
  }

  private static byte[] copy(ByteBuffer b) {
    byte[] d = new byte[b.remaining()];
    b.duplicate().get(d);
    return d;
  }
}
