package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.frame.NewTokenFrame;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketNumber;
import dev.tern.transport.udp.packet.PacketProtection;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retry, tokens and NEW_TOKEN on the wire (docs/protocol.md §9.7-§9.9): the client's rules for
 * accepting a Retry (RFC 9000 §17.2.5.2), its checks of the server's connection-ID parameters
 * (§7.3), the demux's accept / retry / refuse decision, NEW_TOKEN end to end, and the
 * anti-amplification limit counted on authentic datagrams only (§8.1).
 */
@Timeout(60)
class RetryTest {
  private static final long MS = 1_000_000L;
  private static final long PATH = 7;

  private long now = 1_000 * MS;
  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private final ByteBuffer reply = ByteBuffer.allocate(2048);

  /** A client and a server demux joined by a loss-free path, with taps and filters. */
  private final class Net {
    final ServerDemux demux;
    final Connection client;
    final List<byte[]> tokens = new ArrayList<>();
    /** Datagrams to the server pass if this says so. */
    Predicate<byte[]> up = d -> true;
    long toServerBytes;
    long toClientBytes;

    Net(ConnectionConfig clientConfig, ConnectionConfig serverConfig, int seed) {
      demux = new ServerDemux(Forge.seeded(serverConfig, seed), c -> new ConnectionListener() {},
          16);
      client = Connection.client(Forge.seeded(clientConfig, seed + 1), new ConnectionListener() {
        @Override
        public void onNewToken(Connection connection, byte[] token) {
          tokens.add(token);
        }
      });
    }

    void run(int steps) {
      for (int i = 0; i < steps; i++) {
        now += MS;
        if (client.nextTimeoutNs() <= now) {
          client.onTimeout(now);
        }
        for (Connection c : new ArrayList<>(demux.connections())) {
          if (c.nextTimeoutNs() <= now) {
            c.onTimeout(now);
          }
        }
        boolean any = true;
        while (any) {
          any = false;
          wire.clear();
          if (client.pollDatagram(wire, now) > 0) {
            wire.flip();
            any = true;
            byte[] d = copy(wire);
            if (up.test(d)) {
              toServerBytes += d.length;
              reply.clear();
              demux.onDatagram(ByteBuffer.wrap(d), now, PATH, reply);
              if (reply.position() > 0) {
                reply.flip();
                toClientBytes += reply.remaining();
                client.onDatagram(reply, now, 0);
              }
            }
          }
          for (Connection c : new ArrayList<>(demux.connections())) {
            wire.clear();
            if (c.pollDatagram(wire, now) > 0) {
              wire.flip();
              toClientBytes += wire.remaining();
              client.onDatagram(wire, now, 0);
              any = true;
            }
          }
        }
      }
    }

    Connection server() {
      return demux.connections().isEmpty() ? null : demux.connections().get(0);
    }
  }

  private static ConnectionConfig serverWith(AddressValidation.RetryPolicy policy) {
    return ConnectionConfig.builder().addressValidation(AddressValidation.defaults()
        .withRetryPolicy(policy)).build();
  }

  private static byte[] copy(ByteBuffer b) {
    byte[] d = new byte[b.remaining()];
    b.duplicate().get(d);
    return d;
  }

  private static ConnectionId cid(int fill) {
    byte[] b = new byte[8];
    java.util.Arrays.fill(b, (byte) fill);
    return ConnectionId.of(b);
  }

  /** A Retry to {@code client} from {@code scid}, tagged for the ID it sent its INITIAL to. */
  private static ByteBuffer retry(Connection client, ConnectionId scid, byte[] token) {
    ByteBuffer b = ByteBuffer.allocate(256);
    new RetryPacket(CryptoProviders.auto()).write(b, client.version(), 3, client.localCid, scid,
        token, client.peerCid);
    b.flip();
    return b;
  }

  /** The client's next INITIAL, parsed; returns its header (over {@code wire}). */
  private PacketHeader nextInitial(Connection client) {
    wire.clear();
    for (int i = 0; i < 100 && client.pollDatagram(wire, now) == 0; i++) {
      now += MS; // the pacer's next send
    }
    assertThat(wire.position()).isPositive();
    wire.flip();
    PacketHeader h = new PacketHeader();
    assertThat(h.parse(wire, 0, 8)).isTrue();
    return h;
  }

  private Connection freshClient() {
    Connection c = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 11),
        new ConnectionListener() {});
    nextInitial(c); // the first INITIAL left
    return c;
  }

  @Test
  void theClientAcceptsOneRetryAndSendsItsInitialToTheNewIdWithTheTokenUnderItsKeys() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 11),
        new ConnectionListener() {});
    PacketHeader first = nextInitial(client);
    ConnectionId firstDcid = client.peerCid;
    assertThat(first.tokenLength).isZero();
    byte[] token = {1, 2, 3, 4, 5};
    now += MS;
    client.onDatagram(retry(client, cid(0x42), token), now, 0);
    assertThat(client.stats().retriesAccepted).isEqualTo(1);

    PacketHeader again = nextInitial(client);
    assertThat(ConnectionId.read(wire, again.dcidOffset, again.dcidLength)).isEqualTo(cid(0x42));
    assertThat(ConnectionId.read(wire, again.scidOffset, again.scidLength))
        .as("the client keeps its source ID").isEqualTo(client.localCid);
    byte[] sent = new byte[again.tokenLength];
    wire.get(again.tokenOffset, sent);
    assertThat(sent).isEqualTo(token);
    // RFC 9001 §5.2: the Initial keys of the new DCID open it; those of the first do not.
    PacketProtection newKeys = HandshakeCrypto.initialKeys(CryptoProviders.auto(), cid(0x42),
        false);
    PacketProtection oldKeys = HandshakeCrypto.initialKeys(CryptoProviders.auto(), firstDcid,
        false);
    ByteBuffer copy = ByteBuffer.wrap(copy(wire));
    assertThat(opens(oldKeys, copy(wire))).isFalse();
    int pnLength = newKeys.removeHeaderProtection(copy, 0, again.pnOffset, again.packetEnd);
    again.readPacketNumber(copy, pnLength);
    assertThat(PacketNumber.decode(-1, again.truncatedPn, 8 * pnLength))
        .as("packet numbers continue").isPositive();
    assertThat(newKeys.open(copy, 0, again.payloadOffset(), again.packetEnd,
        PacketNumber.decode(-1, again.truncatedPn, 8 * pnLength))).isPositive();

    // A second Retry, valid in itself, is discarded (§17.2.5.2).
    client.onDatagram(retry(client, cid(0x43), new byte[] {9}), now, 0);
    assertThat(client.stats().retriesDiscarded).isEqualTo(1);
    assertThat(client.peerCid).isEqualTo(cid(0x42));
  }

  private static boolean opens(PacketProtection keys, byte[] datagram) {
    ByteBuffer b = ByteBuffer.wrap(datagram);
    PacketHeader h = new PacketHeader();
    h.parse(b, 0, 8);
    int pnLength = keys.removeHeaderProtection(b, 0, h.pnOffset, h.packetEnd);
    if (pnLength < 0) {
      return false;
    }
    h.readPacketNumber(b, pnLength);
    return keys.open(b, 0, h.payloadOffset(), h.packetEnd,
        PacketNumber.decode(-1, h.truncatedPn, 8 * pnLength)) >= 0;
  }

  @Test
  void aRetryWithABadTagAnEmptyTokenTheSameSourceIdOrAnotherDestinationIsDiscarded() {
    Connection client = freshClient();
    ByteBuffer badTag = retry(client, cid(0x42), new byte[] {1});
    badTag.put(badTag.limit() - 1, (byte) (badTag.get(badTag.limit() - 1) ^ 1));
    client.onDatagram(badTag, now, 0);
    client.onDatagram(retry(client, cid(0x42), new byte[0]), now, 0);
    client.onDatagram(retry(client, client.peerCid, new byte[] {1}), now, 0);
    ByteBuffer otherDest = ByteBuffer.allocate(256);
    new RetryPacket(CryptoProviders.auto()).write(otherDest, client.version(), 0, cid(0x55),
        cid(0x42), new byte[] {1}, client.peerCid);
    otherDest.flip();
    client.onDatagram(otherDest, now, 0);
    assertThat(client.stats().retriesDiscarded).isEqualTo(4);
    assertThat(client.stats().retriesAccepted).isZero();
    assertThat(client.retried()).isFalse();
    // Still able to accept a good one.
    client.onDatagram(retry(client, cid(0x42), new byte[] {1}), now, 0);
    assertThat(client.stats().retriesAccepted).isEqualTo(1);
  }

  @Test
  void aRetryAfterTheServersFirstPacketIsDiscarded() {
    Net net = new Net(ConnectionConfig.defaults(), serverWith(AddressValidation.RetryPolicy.NEVER),
        20);
    net.run(5);
    assertThat(net.client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    net.client.onDatagram(retry(net.client, cid(0x42), new byte[] {1}), now, 0);
    assertThat(net.client.stats().retriesDiscarded).isEqualTo(1);
    assertThat(net.client.retried()).isFalse();
  }

  @Test
  void aServerThatAlwaysRetriesKeepsNoStateUntilTheTokenComesBackAndTheHandshakeCompletes() {
    Net net = new Net(ConnectionConfig.defaults(),
        serverWith(AddressValidation.RetryPolicy.ALWAYS), 30);
    net.up = d -> {
      if (net.demux.retriesSent() == 1 && net.demux.connections().isEmpty()) {
        // The Retry went out and no connection exists: checked before the token comes back.
        assertThat(net.demux.handshakesInProgressNow()).isZero();
      }
      return true;
    };
    net.run(10);
    assertThat(net.demux.retriesSent()).isEqualTo(1);
    assertThat(net.demux.tokensValid()).isEqualTo(1);
    assertThat(net.demux.connections()).hasSize(1);
    Connection server = net.server();
    assertThat(server.retried()).isTrue();
    assertThat(net.client.retried()).isTrue();
    assertThat(net.client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.addressValidated()).isTrue();
    assertThat(net.client.stats().retriesAccepted).isEqualTo(1);
  }

  /**
   * A server built with {@code handshakeDcid} and {@code retryScid} of its choosing, answering
   * {@code client}'s INITIAL, so its transport parameters say what the test wants.
   */
  private Connection serverClaiming(Connection client, byte[] initial, ConnectionId handshakeDcid,
      ConnectionId retryScid) {
    PacketHeader h = new PacketHeader();
    ByteBuffer b = ByteBuffer.wrap(initial);
    h.parse(b, 0, 8);
    ConnectionId dcid = ConnectionId.read(b, h.dcidOffset, h.dcidLength);
    Connection server = Connection.server(Forge.seeded(ConnectionConfig.defaults(), 3), null,
        dcid, client.localCid, client.version(), Connection.scheduler(ConnectionConfig.defaults()),
        null, handshakeDcid, retryScid);
    server.onDatagram(b, now, 0);
    return server;
  }

  private void finish(Connection client, Connection server) {
    for (int i = 0; i < 5; i++) {
      now += MS;
      Forge.exchange(client, server, wire, now);
    }
  }

  @Test
  void aRetrySourceIdWithoutARetryIsATransportParameterError() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 11),
        new ConnectionListener() {});
    ConnectionId first = client.peerCid;
    nextInitial(client);
    Connection server = serverClaiming(client, copy(wire), first, cid(0x42));
    finish(client, server);
    assertThat(client.closeError()).isEqualTo(TransportError.TRANSPORT_PARAMETER_ERROR);
  }

  @Test
  void aMissingOrDifferentRetrySourceIdAfterARetryIsATransportParameterError() {
    for (ConnectionId claimed : new ConnectionId[] {null, cid(0x43)}) {
      Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 11),
          new ConnectionListener() {});
      ConnectionId first = client.peerCid;
      nextInitial(client);
      client.onDatagram(retry(client, cid(0x42), new byte[] {7}), now, 0);
      nextInitial(client);
      Connection server = serverClaiming(client, copy(wire), first, claimed);
      finish(client, server);
      assertThat(client.closeError()).as("retry_source_connection_id %s", claimed)
          .isEqualTo(TransportError.TRANSPORT_PARAMETER_ERROR);
    }
    // The matching one completes: the check is what failed above.
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 11),
        new ConnectionListener() {});
    ConnectionId first = client.peerCid;
    nextInitial(client);
    client.onDatagram(retry(client, cid(0x42), new byte[] {7}), now, 0);
    nextInitial(client);
    Connection server = serverClaiming(client, copy(wire), first, cid(0x42));
    finish(client, server);
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  @Test
  void theServerSendsANewTokenThatValidatesTheNextConnectionAtOnce() {
    ConnectionConfig server = serverWith(AddressValidation.RetryPolicy.NEVER);
    Net first = new Net(ConnectionConfig.defaults(), server, 40);
    first.run(200);
    assertThat(first.client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(first.tokens).hasSize(1);
    assertThat(first.demux.newTokensIssued()).isEqualTo(1);
    assertThat(first.server().isQuiescent()).as("the NEW_TOKEN was acknowledged").isTrue();
    byte[] token = first.tokens.get(0);

    // Two clients whose every datagram after the first INITIAL is lost: the server can only
    // probe. Unvalidated it stops at three times the 1,200 bytes; with the token it goes on.
    long[] sent = new long[2];
    for (int i = 0; i < 2; i++) {
      ConnectionConfig config = i == 0 ? ConnectionConfig.defaults()
          : ConnectionConfig.builder().addressToken(token).build();
      Net net = new Net(config, server, 40); // the same server key and address
      net.up = d -> net.toServerBytes == 0;
      net.run(3_000);
      sent[i] = net.toClientBytes;
      assertThat(net.server().addressValidated()).isEqualTo(i == 1);
      if (i == 1) {
        assertThat(net.demux.tokensValid()).isEqualTo(1);
      }
    }
    assertThat(sent[0]).as("without a token").isLessThanOrEqualTo(3 * 1200);
    assertThat(sent[1]).as("with the token").isGreaterThan(3 * 1200);
  }

  /**
   * RFC 9000 §19.7: a NEW_TOKEN frame sent again after a spurious loss carries the same token,
   * and the client discards the duplicate rather than keep it twice.
   */
  @Test
  void aNewTokenSentAgainIsHandedToTheClientOnce() {
    Net net = new Net(ConnectionConfig.defaults(), serverWith(AddressValidation.RetryPolicy.NEVER),
        42);
    net.run(200);
    assertThat(net.tokens).hasSize(1);
    Connection server = net.server();
    assertThat(server.newToken).as("acknowledged").isNull();
    // As if its packet had been declared lost though it arrived: the same token goes again.
    server.newToken = net.tokens.get(0).clone();
    server.newTokenPending = true;
    net.run(200);
    assertThat(server.newTokenPending).as("sent again").isFalse();
    assertThat(net.tokens).hasSize(1);
    assertThat(net.client.stats().newTokensReceived).isEqualTo(1);
  }

  @Test
  void aTokenFromAnotherAddressOrServerDoesNotValidate() {
    ConnectionConfig server = serverWith(AddressValidation.RetryPolicy.NEVER);
    Net first = new Net(ConnectionConfig.defaults(), server, 40);
    first.run(200);
    byte[] token = first.tokens.get(0);
    Net other = new Net(ConnectionConfig.builder().addressToken(token).build(), server, 41);
    other.demux.setPeerAddresses((path, withPort) -> new byte[] {1, 2, 3, 4});
    other.run(10);
    assertThat(other.demux.tokensInvalid()).isEqualTo(1);
    assertThat(other.client.state()).as("ignored, not refused")
        .isEqualTo(ConnectionState.ESTABLISHED);
  }

  @Test
  void aNewTokenFromAClientIsAProtocolViolation() {
    Net net = new Net(ConnectionConfig.defaults(), serverWith(AddressValidation.RetryPolicy.NEVER),
        50);
    net.run(10);
    Connection server = net.server();
    server.onDatagram(Forge.oneRtt(net.client, server.localCid, 1_000, b -> NewTokenFrame.encode(b,
        new byte[] {1, 2})), now, PATH);
    assertThat(server.closeError()).isEqualTo(TransportError.PROTOCOL_VIOLATION);
  }

  @Test
  void anExpiredRetryTokenIsRefusedWithInvalidToken() {
    long[] clock = {1_000_000};
    ConnectionConfig server = ConnectionConfig.builder().addressValidation(AddressValidation
        .defaults().withRetryPolicy(AddressValidation.RetryPolicy.ALWAYS)
        .withClockMs(() -> clock[0])).build();
    Net net = new Net(ConnectionConfig.defaults(), server, 60);
    net.up = d -> {
      if (net.demux.retriesSent() == 1) {
        clock[0] += 6_000; // the token comes back after its 5 s
      }
      return true;
    };
    net.run(10);
    assertThat(net.demux.invalidTokenCloses()).isEqualTo(1);
    assertThat(net.demux.connections()).isEmpty();
    assertThat(net.client.closeError()).isEqualTo(TransportError.INVALID_TOKEN);
  }

  @Test
  void beyondTheBoundOnHandshakesInProgressClientsAreRefused() {
    ConnectionConfig server = ConnectionConfig.builder().addressValidation(AddressValidation
        .defaults().withRetryPolicy(AddressValidation.RetryPolicy.NEVER).withMaxHandshakes(1))
        .build();
    ServerDemux demux = new ServerDemux(Forge.seeded(server, 70), c -> new ConnectionListener() {},
        16);
    Connection[] clients = new Connection[2];
    for (int i = 0; i < 2; i++) {
      clients[i] = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 71 + i),
          new ConnectionListener() {});
      wire.clear();
      clients[i].pollDatagram(wire, now);
      wire.flip();
      reply.clear();
      demux.onDatagram(wire, now, PATH + i, reply);
      reply.flip();
      if (reply.hasRemaining()) {
        assertThat(reply.remaining()).as("the refusal is smaller than the INITIAL")
            .isLessThan(200);
        clients[i].onDatagram(reply, now, 0);
      }
    }
    assertThat(demux.connections()).hasSize(1);
    assertThat(demux.handshakesRefused()).isEqualTo(1);
    assertThat(clients[1].closeError()).isEqualTo(TransportError.CONNECTION_REFUSED);
    assertThat(clients[0].closeError()).isNull();
  }

  @Test
  void forgedDatagramsToAConnectionDoNotRaiseItsAmplificationBudget() {
    Net net = new Net(ConnectionConfig.defaults(), serverWith(AddressValidation.RetryPolicy.NEVER),
        80);
    net.up = d -> net.toServerBytes == 0; // only the first INITIAL arrives
    net.run(1);
    Connection server = net.server();
    long before = server.path.receivedBytes;
    assertThat(before).isEqualTo(net.toServerBytes);
    // An INITIAL to the server's connection ID that does not open (another DCID's keys).
    ByteBuffer forged = Forge.initial(server.version(), cid(0x66), server.localCid,
        net.client.localCid, 9, b -> b.put((byte) 1));
    server.onDatagram(forged, now, PATH);
    assertThat(server.stats().packetsFailedToOpen).isEqualTo(1);
    assertThat(server.path.receivedBytes).isEqualTo(before);
  }
}
