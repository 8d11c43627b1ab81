package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.crypto.KeyLabels;
import dev.tern.transport.udp.crypto.OneRttPacketKeys;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RFC 9001 §6.6: packets that fail authentication are counted over the whole connection, across
 * its keys, and once the count exceeds the AEAD's integrity limit the connection closes with
 * AEAD_LIMIT_REACHED.
 */
@Timeout(60)
class IntegrityLimitTest {
  private static final long MS = 1_000_000L;

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;
  private Connection client;
  private Connection server;

  /** The client's first INITIAL creates the server; the handshake is not yet run. */
  private void start(ConnectionConfig clientConfig) {
    client = Connection.client(Forge.seeded(clientConfig, 1), new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
  }

  private void finishHandshake() {
    for (int i = 0; i < 20; i++) {
      now += MS;
      Forge.exchange(client, server, wire, now);
    }
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  /** An INITIAL to the server sealed with the Initial keys of some other connection's ID. */
  private ByteBuffer forgedInitial(long pn) {
    ConnectionId other = ConnectionId.random(new Random(pn));
    return Forge.initial(server.version(), other, client.originalDcid, client.localConnectionId(),
        pn, SimpleFrames::encodePing);
  }

  /** A 1-RTT packet to the server sealed with keys made up from {@code seed}. */
  private ByteBuffer forgedOneRtt(long pn, long seed) {
    byte[] madeUp = new byte[32];
    new Random(seed).nextBytes(madeUp);
    OneRttPacketKeys forger = new OneRttPacketKeys(CryptoProviders.auto(),
        AeadAlgorithm.AES_256_GCM, KeyLabels.TERN_V1, madeUp, madeUp);
    ByteBuffer b = ByteBuffer.allocate(1500);
    PacketWriter.writeShortHeader(b, server.localConnectionId(), pn, 2);
    int payload = b.position();
    SimpleFrames.encodePing(b);
    SimpleFrames.encodePadding(b, 40);
    forger.seal(b, 0, payload, pn);
    forger.applyHeaderProtection(b, 0, payload - 2);
    return b.flip();
  }

  @Test
  void failuresUnderEveryKeyAddUpAndPastTheLimitCloseWithAeadLimitReached() {
    start(ConnectionConfig.defaults());
    server.integrityLimitOverride = 3;
    // Two forgeries under the Initial keys, two under the 1-RTT keys: no key set sees more
    // than the limit, the connection does.
    server.onDatagram(forgedInitial(7), now, 0);
    server.onDatagram(forgedInitial(8), now, 0);
    assertThat(server.stats().packetsFailedToOpen).isEqualTo(2);
    finishHandshake();
    server.onDatagram(forgedOneRtt(100, 1), now, 0);
    assertThat(server.stats().packetsFailedToOpen).isEqualTo(3);
    assertThat(server.state()).as("3 failures do not exceed a limit of 3")
        .isEqualTo(ConnectionState.ESTABLISHED);
    server.onDatagram(forgedOneRtt(101, 2), now, 0);
    assertThat(server.stats().packetsFailedToOpen).isEqualTo(4);
    assertThat(server.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(server.closeError()).isEqualTo(TransportError.AEAD_LIMIT_REACHED);
    assertThat(server.closeCode()).isEqualTo(0x0f);
    // The client is told why.
    wire.clear();
    assertThat(server.pollDatagram(wire, now)).isPositive();
    client.onDatagram(wire.flip(), now, 0);
    assertThat(client.state()).isEqualTo(ConnectionState.DRAINING);
    assertThat(client.closeError()).isEqualTo(TransportError.AEAD_LIMIT_REACHED);
  }

  @Test
  void corruptionUnderTheLimitChangesNothing() {
    start(ConnectionConfig.defaults());
    server.integrityLimitOverride = 5;
    finishHandshake();
    for (int i = 0; i < 5; i++) {
      server.onDatagram(forgedOneRtt(100 + i, i), now, 0);
    }
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.authenticationFailures).isEqualTo(5);
    // Genuine traffic still flows.
    Stream s = client.openStream();
    client.write(s, ByteBuffer.wrap(new byte[100]));
    now += MS;
    Forge.exchange(client, server, wire, now);
    assertThat(server.streamCount()).isEqualTo(1);
  }

  @Test
  void theLimitIsTheAeadsOwn() {
    start(ConnectionConfig.defaults());
    assertThat(server.integrityLimit(server.initialSpace.protection))
        .as("Initial packets: AES-128-GCM").isEqualTo(1L << 52);
    finishHandshake();
    assertThat(server.integrityLimit(server.appSpace.protection)).isEqualTo(1L << 52);

    start(ConnectionConfig.builder().handshakeCipher(AeadAlgorithm.CHACHA20_POLY1305).build());
    finishHandshake();
    assertThat(server.integrityLimit(server.appSpace.protection)).isEqualTo(1L << 36);
    assertThat(client.integrityLimit(client.appSpace.protection)).isEqualTo(1L << 36);
  }
}
