package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.crypto.KeyLabels;
import dev.tern.transport.udp.crypto.OneRttPacketKeys;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Packets that do not open are dropped and counted, never acted on (RFC 9001 §5.5): a bit
 * flipped in transit, a packet forged with keys the attacker made up, and a replayed INITIAL.
 */
@Timeout(60)
class ProtectedPacketsTest {
  private static final long MS = 1_000_000L;

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;
  private Connection client;
  private Connection server;
  private ServerDemux demux;
  private byte[] firstInitial;

  private void handshake() {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    firstInitial = new byte[wire.remaining()];
    wire.duplicate().get(firstInitial);
    server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    for (int i = 0; i < 20; i++) {
      now += MS;
      Forge.exchange(client, server, wire, now);
    }
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  /** The client's next datagram, carrying {@code bytes} of stream data, as sent. */
  private byte[] nextClientDatagram(int bytes) {
    Stream s = client.openStream();
    client.write(s, ByteBuffer.wrap(new byte[bytes]));
    wire.clear();
    int n = client.pollDatagram(wire, now);
    assertThat(n).isPositive();
    byte[] d = new byte[n];
    wire.flip().get(d);
    return d;
  }

  @Test
  void aBitFlippedInAProtectedPacketIsDroppedAndCounted() {
    handshake();
    byte[] sent = nextClientDatagram(300);
    long received = server.stats().packetsReceived;
    for (int at : new int[] {sent.length / 2, sent.length - 1, 1 + 8}) {
      byte[] corrupt = sent.clone();
      corrupt[at] ^= 0x20; // payload, tag, the packet number's first byte (after the DCID)
      server.onDatagram(ByteBuffer.wrap(corrupt), now, 0);
    }
    assertThat(server.stats().packetsFailedToOpen).isEqualTo(3);
    assertThat(server.stats().packetsReceived).isEqualTo(received);
    assertThat(server.streamCount()).isZero();
    // The packet as sent still opens: nothing of the failures stuck to the keys.
    server.onDatagram(ByteBuffer.wrap(sent), now, 0);
    assertThat(server.stats().packetsReceived).isEqualTo(received + 1);
    assertThat(server.streamCount()).isEqualTo(1);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  @Test
  void aPacketForgedWithAnotherKeyIsDroppedAndCounted() {
    handshake();
    byte[] madeUp = new byte[32];
    new Random(5).nextBytes(madeUp);
    OneRttPacketKeys forger = new OneRttPacketKeys(CryptoProviders.auto(),
        AeadAlgorithm.AES_256_GCM, KeyLabels.TERN_V1, madeUp, madeUp);
    ByteBuffer b = ByteBuffer.allocate(1500);
    PacketWriter.writeShortHeader(b, server.localConnectionId(), 5, 2);
    int payload = b.position();
    SimpleFrames.encodePing(b);
    SimpleFrames.encodePadding(b, 40);
    forger.seal(b, 0, payload, 5);
    forger.applyHeaderProtection(b, 0, payload - 2);
    long received = server.stats().packetsReceived;
    server.onDatagram(b.flip(), now, 0);
    assertThat(server.stats().packetsFailedToOpen).isEqualTo(1);
    assertThat(server.stats().packetsReceived).isEqualTo(received);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  @Test
  void aCorruptedInitialCreatesNoConnectionAndIsCountedByTheEndpoint() {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    wire.put(600, (byte) (wire.get(600) ^ 1));
    assertThat(demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048))).isNull();
    assertThat(demux.connections()).isEmpty();
    assertThat(demux.packetsFailedToOpen()).isEqualTo(1);
  }

  @Test
  void aReplayedInitialChangesNothing() {
    handshake();
    long received = server.stats().packetsReceived;
    // While the Initial space lives: the same packet number again, a duplicate.
    ServerDemux fresh = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    Connection other = fresh.onDatagram(ByteBuffer.wrap(firstInitial.clone()), now, 0,
        ByteBuffer.allocate(2048));
    assertThat(other).isNotNull();
    long otherReceived = other.stats().packetsReceived;
    assertThat(fresh.onDatagram(ByteBuffer.wrap(firstInitial.clone()), now, 0,
        ByteBuffer.allocate(2048))).isSameAs(other);
    assertThat(other.stats().duplicatesDropped).isEqualTo(1);
    assertThat(other.stats().packetsReceived).isEqualTo(otherReceived);
    assertThat(fresh.connections()).hasSize(1);
    // After the handshake: the Initial keys are gone, so is the replay.
    assertThat(demux.onDatagram(ByteBuffer.wrap(firstInitial.clone()), now, 0,
        ByteBuffer.allocate(2048))).isSameAs(server);
    assertThat(server.stats().discardedSpaceDropped).isEqualTo(1);
    assertThat(server.stats().packetsReceived).isEqualTo(received);
    assertThat(demux.connections()).hasSize(1);
  }
}
