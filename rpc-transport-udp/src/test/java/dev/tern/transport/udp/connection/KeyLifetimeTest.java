package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.OneRttPacketKeys;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 1-RTT key update over a live connection (RFC 9001 §6): keys update themselves before their
 * confidentiality limit (§6.6), and after an update the previous read keys open reordered
 * packets for three probe timeouts and are then discarded (§6.1, §6.5).
 */
@Timeout(60)
class KeyLifetimeTest {
  private static final long MS = 1_000_000L;

  /** The application side: reads everything it is told about. */
  private static final class Reader implements ConnectionListener {
    final ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
    Connection connection;
    long read;

    @Override
    public void onReadable(Stream s) {
      int n;
      do {
        sink.clear();
        n = connection.read(s, sink);
        read += n;
      } while (n > 0);
    }
  }

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private final Reader serverReader = new Reader();
  private long now = 1_000 * MS;
  private Connection client;
  private Connection server;

  /**
   * A client and a server whose 1-RTT write keys start an update after {@code updateAfter}
   * packets and seal at most {@code limit}, through the handshake.
   */
  private void handshake(long updateAfter, long limit) {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    client.keys.updateAfterPackets = updateAfter;
    client.keys.confidentialityLimitPackets = limit;
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    server = Connection.server(Forge.seeded(ConnectionConfig.defaults(), 2), serverReader,
        client.originalDcid, client.localConnectionId(), client.version());
    serverReader.connection = server;
    server.keys.updateAfterPackets = updateAfter;
    server.keys.confidentialityLimitPackets = limit;
    server.onDatagram(wire, now, 0);
    for (int i = 0; i < 20; i++) {
      step();
    }
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  /** Moves every datagram each way, then advances time a millisecond and runs due timers. */
  private void step() {
    Forge.exchange(client, server, wire, now);
    now += MS;
    if (client.nextTimeoutNs() <= now) {
      client.onTimeout(now);
    }
    if (server.nextTimeoutNs() <= now) {
      server.onTimeout(now);
    }
  }

  private static OneRttPacketKeys keys(Connection c) {
    return c.keys.oneRtt;
  }

  @Test
  void keysUpdateBeforeTheirConfidentialityLimitAndTheConnectionCarriesOn() {
    // A key may seal 20 packets; an update starts after 10. Without updates the first key to
    // reach 20 would refuse to seal and close the connection with AEAD_LIMIT_REACHED.
    handshake(10, 20);
    Stream s = client.openStream();
    long total = 300_000;
    long written = 0;
    for (int i = 0; i < 20_000 && serverReader.read < total; i++) {
      if (written < total) {
        written += client.write(s, ByteBuffer.wrap(new byte[(int) Math.min(4096,
            total - written)]));
      }
      step();
    }
    assertThat(serverReader.read).isEqualTo(total);
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    // 300 KB is over 200 packets: at least ten generations each way.
    assertThat(keys(client).keyUpdates()).isGreaterThanOrEqualTo(10);
    assertThat(keys(server).keyUpdates()).isGreaterThanOrEqualTo(10);
    assertThat(client.stats().packetsFailedToOpen + server.stats().packetsFailedToOpen)
        .isZero();
  }

  @Test
  void aPacketOfThePreviousPhaseOpensForThreeProbeTimeoutsThenIsDroppedAndCounted() {
    handshake(12, 1_000);
    assertThat(keys(client).keyPhase()).isZero();
    Stream s = client.openStream();
    // Two packets of key phase 0 that the network holds back.
    client.write(s, ByteBuffer.wrap(new byte[200]));
    byte[] early = poll(client);
    client.write(s, ByteBuffer.wrap(new byte[200]));
    now += 5 * MS; // past the pacer's interval
    byte[] late = poll(client);
    assertThat(keys(client).keyUpdates()).isZero();
    // More data until the client's keys update and the server has a packet of the new phase.
    for (int i = 0; i < 200 && keys(server).readGeneration() == 0; i++) {
      client.write(s, ByteBuffer.wrap(new byte[200]));
      step();
    }
    assertThat(keys(server).readGeneration()).isEqualTo(1);
    long discardAt = server.keys.nextTimeoutNs();
    assertThat(discardAt).as("three PTOs from the first packet of the new phase")
        .isGreaterThan(now).isLessThan(Long.MAX_VALUE);

    long received = server.stats().packetsReceived;
    server.onDatagram(ByteBuffer.wrap(early), now, 0);
    assertThat(server.stats().packetsReceived).as("within the window it opens")
        .isEqualTo(received + 1);
    assertThat(keys(server).hasPreviousReadKeys()).isTrue();

    now = discardAt - 1;
    server.onTimeout(now);
    assertThat(keys(server).hasPreviousReadKeys()).isTrue();
    now = discardAt;
    assertThat(server.nextTimeoutNs()).isLessThanOrEqualTo(now);
    server.onTimeout(now);
    assertThat(keys(server).hasPreviousReadKeys()).isFalse();
    assertThat(server.keys.nextTimeoutNs()).isEqualTo(Long.MAX_VALUE);

    long failed = server.stats().packetsFailedToOpen;
    server.onDatagram(ByteBuffer.wrap(late), now, 0);
    assertThat(server.stats().packetsReceived).as("after it, it is dropped")
        .isEqualTo(received + 1);
    assertThat(server.stats().oldKeysDropped).isEqualTo(1);
    assertThat(server.stats().packetsFailedToOpen).as("late, not forged").isEqualTo(failed);
    assertThat(server.authenticationFailures).isZero();
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  @Test
  void initialKeysGoWhenThePeerHasOurHandshakeMessageAndNoHandshakeKeysExist() {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    server = Connection.server(Forge.seeded(ConnectionConfig.defaults(), 2), serverReader,
        client.originalDcid, client.localConnectionId(), client.version());
    serverReader.connection = server;
    server.onDatagram(wire, now, 0);
    // No HANDSHAKE packets in this protocol: the space is gone from the start (RFC 9001 §4.9.2
    // has nothing to discard).
    for (Connection c : new Connection[] {client, server}) {
      assertThat(c.spaces[PacketSpace.HANDSHAKE].discarded()).isTrue();
      assertThat(c.spaces[PacketSpace.HANDSHAKE].protection).isNull();
    }
    assertThat(server.initialSpace.protection).isNotNull();
    // The ServerHello reaches the client: it discards its Initial keys (RFC 9001 §4.9.1).
    wire.clear();
    server.pollDatagram(wire, now);
    client.onDatagram(wire.flip(), now, 0);
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(client.initialSpace.protection).isNull();
    assertThat(server.initialSpace.protection).as("until a 1-RTT packet shows the client has it")
        .isNotNull();
    // The client's first 1-RTT packet: the server discards its Initial keys too.
    wire.clear();
    client.pollDatagram(wire, now);
    server.onDatagram(wire.flip(), now, 0);
    assertThat(server.initialSpace.discarded()).isTrue();
    assertThat(server.initialSpace.protection).isNull();
  }

  private byte[] poll(Connection c) {
    wire.clear();
    int n = c.pollDatagram(wire, now);
    assertThat(n).isPositive();
    byte[] d = new byte[n];
    wire.flip().get(d);
    return d;
  }
}
