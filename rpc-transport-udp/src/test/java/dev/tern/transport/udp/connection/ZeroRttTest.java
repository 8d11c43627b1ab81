package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.handshake.MemoryTicketStore;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketType;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Resumption and 0-RTT on the wire (docs/protocol.md §9.10): the server issues a ticket once the
 * handshake is confirmed; a client resuming with it sends its request in 0-RTT coalesced after
 * its INITIAL; the server accepts it (the request is there after the first datagram alone, flagged
 * as early data) or rejects it (stale ticket age: the request arrives once, in 1-RTT, and the
 * caller's stream is untouched); a replayed first flight delivers nothing twice.
 */
@Timeout(60)
class ZeroRttTest {
  private static final long MS = 1_000_000L;
  private static final byte[] REQUEST = "GET /idempotent".getBytes(StandardCharsets.UTF_8);

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000_000 * MS;
  private final MemoryTicketStore tickets =
      new MemoryTicketStore(() -> now / MS, new Random(7), 3_600_000, 2_000);

  /** A server endpoint and the client connections it talks with. */
  private final class Net {
    final ServerDemux demux;
    final Set<Connection> servers = new LinkedHashSet<>();
    final List<byte[]> fromClient = new ArrayList<>();

    Net(MemoryTicketStore store) {
      this(store, 16_384);
    }

    Net(MemoryTicketStore store, long maxEarlyData) {
      ConnectionConfig config = Forge.seeded(ConnectionConfig.builder().ticketStore(store)
          .maxEarlyDataBytes(maxEarlyData).wallClock(() -> now / MS).build(), 2);
      demux = new ServerDemux(config, c -> new ConnectionListener() {}, 16);
    }

    /** Delivers one datagram from the client; returns the connection it reached, or null. */
    Connection deliver(byte[] datagram) {
      Connection c = demux.onDatagram(ByteBuffer.wrap(datagram.clone()), now, 0,
          ByteBuffer.allocate(2048));
      if (c != null) {
        servers.add(c);
      }
      return c;
    }

    void run(Connection client, int rounds) {
      for (int i = 0; i < rounds; i++) {
        now += MS;
        boolean any = true;
        while (any) {
          any = false;
          wire.clear();
          if (client.pollDatagram(wire, now) > 0) {
            wire.flip();
            byte[] d = new byte[wire.remaining()];
            wire.get(d);
            fromClient.add(d);
            deliver(d);
            any = true;
          }
          for (Connection s : servers) {
            wire.clear();
            if (s.pollDatagram(wire, now) > 0) {
              wire.flip();
              client.onDatagram(wire, now, 0);
              any = true;
            }
          }
        }
        client.onTimeout(now);
        for (Connection s : servers) {
          s.onTimeout(now);
        }
      }
    }

    Connection server() {
      return servers.iterator().next();
    }
  }

  private long seed = 100;

  /** Each client its own seed: its connection IDs must differ from the previous client's. */
  private ConnectionConfig clientConfig() {
    return Forge.seeded(ConnectionConfig.builder().wallClock(() -> now / MS).build(), seed++);
  }

  /** A first connection; returns the ticket its client was given. */
  private SessionTicket earnTicket(Net net) {
    SessionTicket[] got = new SessionTicket[1];
    Connection client = Connection.client(clientConfig(), new ConnectionListener() {
      @Override
      public void onTicket(Connection c, SessionTicket t) {
        got[0] = t;
      }
    });
    net.run(client, 30);
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(got[0]).as("ticket").isNotNull();
    assertThat(client.stats().tickets).isEqualTo(1);
    assertThat(net.server().stats().tickets).isEqualTo(1);
    client.close(0, "done");
    net.run(client, 5);
    return got[0];
  }

  /**
   * A NEW_TICKET sent again after a spurious loss carries the same ticket: the client hands it to
   * its listener once (RFC 9000 §19.7's rule for NEW_TOKEN, applied to tickets).
   */
  @Test
  void aTicketSentAgainIsHandedToTheClientOnce() {
    Net net = new Net(tickets);
    List<SessionTicket> got = new ArrayList<>();
    Connection client = Connection.client(clientConfig(), new ConnectionListener() {
      @Override
      public void onTicket(Connection c, SessionTicket t) {
        got.add(t);
      }
    });
    net.run(client, 30);
    assertThat(got).hasSize(1);
    IssuedTicket issued = net.server().issuedTicket;
    assertThat(issued.acked).isTrue();
    issued.acked = false; // as if its packet had been declared lost, though it arrived
    issued.onLost();
    net.run(client, 30);
    assertThat(issued.pending).as("sent again").isFalse();
    assertThat(got).hasSize(1);
    assertThat(client.stats().tickets).isEqualTo(1);
  }

  /** A resumed client with a request written before its first datagram. */
  private Connection resumeWithRequest(SessionTicket ticket, Stream[] stream) {
    Connection client = Connection.client(clientConfig().withResumption(ticket),
        new ConnectionListener() {});
    assertThat(client.canSendEarlyData()).isTrue();
    // RFC 9002 §6.2.2: the estimate starts from the earning connection's smoothed RTT.
    assertThat(client.rtt().smoothedRttNs()).isEqualTo(ticket.smoothedRttNs());
    Stream s = client.openStream();
    assertThat(s).as("a stream opens before the handshake").isNotNull();
    client.write(s, ByteBuffer.wrap(REQUEST));
    client.finish(s);
    stream[0] = s;
    return client;
  }

  private static byte[] firstDatagram(Connection client, long now) {
    ByteBuffer b = ByteBuffer.allocate(2048);
    int n = client.pollDatagram(b, now);
    return Arrays.copyOf(b.array(), n);
  }

  private static byte[] read(Connection c, Stream s) {
    ByteBuffer got = ByteBuffer.allocate(8192);
    c.read(s, got);
    return Arrays.copyOf(got.array(), got.position());
  }

  @Test
  void aTicketIsIssuedOnceConfirmedAndRoundTripsThroughItsEncoding() {
    Net net = new Net(tickets);
    SessionTicket t = earnTicket(net);
    assertThat(tickets.issued()).isEqualTo(1);
    assertThat(t.maxEarlyDataBytes()).isEqualTo(16_384);
    assertThat(t.lifetimeMillis()).isEqualTo(3_600_000);
    assertThat(t.cipher()).isEqualTo(AeadAlgorithm.AES_256_GCM);
    assertThat(t.serverKeyId()).isEqualTo(TestKeys.KEY_ID);
    assertThat(t.smoothedRttNs()).isPositive();
    SessionTicket back = SessionTicket.fromBytes(t.toBytes());
    assertThat(back).isNotNull();
    assertThat(back.toBytes()).isEqualTo(t.toBytes());
    assertThat(SessionTicket.fromBytes(Arrays.copyOf(t.toBytes(), 20))).isNull();
    byte[] otherVersion = t.toBytes();
    otherVersion[0] = 9;
    assertThat(SessionTicket.fromBytes(otherVersion)).isNull();
  }

  @Test
  void theResumedRequestIsInTheFirstDatagramAndTheServerAcceptsIt() {
    Net net = new Net(tickets);
    SessionTicket ticket = earnTicket(net);
    now += 500 * MS;
    Stream[] s = new Stream[1];
    Connection client = resumeWithRequest(ticket, s);
    byte[] first = firstDatagram(client, now);
    assertThat(first.length).isGreaterThanOrEqualTo(1200);
    assertThat(packetTypes(first)).containsExactly(PacketType.INITIAL, PacketType.ZERO_RTT);
    Connection server = net.deliver(first);
    net.servers.clear();
    net.servers.add(server);
    // The request is at the server after the client's first datagram alone.
    Stream early = server.stream(s[0].id());
    assertThat(early).isNotNull();
    assertThat(early.receivedInEarlyData()).isTrue();
    assertThat(read(server, early)).isEqualTo(REQUEST);
    assertThat(server.earlyDataAccepted()).isTrue();
    assertThat(server.stats().earlyDataAccepted).isEqualTo(1);
    assertThat(server.stats().zeroRttPackets).isEqualTo(1);
    server.write(early, ByteBuffer.wrap("ok".getBytes(StandardCharsets.UTF_8)));
    server.finish(early);
    net.run(client, 20);
    assertThat(client.earlyDataAccepted()).isTrue();
    assertThat(client.stats().earlyDataAccepted).isEqualTo(1);
    assertThat(client.stats().earlyDataRejected).isZero();
    assertThat(new String(read(client, s[0]), StandardCharsets.UTF_8)).isEqualTo("ok");
    assertThat(client.stats().packetsFailedToOpen + server.stats().packetsFailedToOpen).isZero();
  }

  @Test
  void aStaleTicketAgeRejectsEarlyDataAndTheRequestGoesOnceIn1Rtt() {
    Net net = new Net(tickets);
    SessionTicket ticket = earnTicket(net);
    // The client's clock stands still while the server's moves on: the ages disagree by 10 s,
    // beyond the 2 s window, as for a first flight replayed 10 s later.
    long clientNowMs = now / MS;
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.builder()
        .wallClock(() -> clientNowMs).build(), seed++).withResumption(ticket),
        new ConnectionListener() {});
    now += 10_000 * MS;
    Stream s = client.openStream();
    client.write(s, ByteBuffer.wrap(REQUEST));
    client.finish(s);
    net.servers.clear();
    net.run(client, 30);
    Connection server = net.server();
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.stats().earlyDataRejected).isEqualTo(1);
    assertThat(server.stats().zeroRttDropped).isPositive();
    assertThat(client.stats().earlyDataRejected).isEqualTo(1);
    assertThat(client.earlyDataAccepted()).isFalse();
    Stream got = server.stream(s.id());
    assertThat(got).isNotNull();
    assertThat(got.receivedInEarlyData()).isFalse();
    assertThat(read(server, got)).isEqualTo(REQUEST); // once, from 1-RTT packets
  }

  @Test
  void aFirstFlightReplayedToTheSameInstanceDeliversNothing() {
    Net net = new Net(tickets);
    SessionTicket ticket = earnTicket(net);
    Stream[] s = new Stream[1];
    Connection client = resumeWithRequest(ticket, s);
    byte[] first = firstDatagram(client, now);
    Connection original = net.deliver(first);
    assertThat(read(original, original.stream(s[0].id()))).isEqualTo(REQUEST);
    // The same bytes again while the connection lives: duplicates, dropped.
    assertThat(net.deliver(first)).isSameAs(original);
    assertThat(original.stats().duplicatesDropped).isPositive();
    // Replayed to another endpoint of the same instance (the same used-ticket record): the
    // ticket was consumed, so the handshake goes on in 1-RTT (RFC 8446 §8) with its early data
    // refused; the 0-RTT packet is never opened and the request is not delivered again.
    Net again = new Net(tickets);
    Connection replayed = again.deliver(first);
    assertThat(replayed.streamCount()).isZero();
    assertThat(replayed.stats().earlyDataRejected).isEqualTo(1);
    assertThat(replayed.stats().earlyDataAccepted).isZero();
    assertThat(replayed.stats().zeroRttDropped).isEqualTo(1);
  }

  @Test
  void aFirstFlightReplayedToASecondInstanceAfterTheWindowIsRefusedItsEarlyData() {
    Net net = new Net(tickets);
    SessionTicket ticket = earnTicket(net);
    Stream[] s = new Stream[1];
    Connection client = resumeWithRequest(ticket, s);
    byte[] first = firstDatagram(client, now);
    net.deliver(first);
    now += 5_000 * MS; // past the 2 s window
    Net second = new Net(tickets.sharing(() -> now / MS));
    Connection replayed = second.deliver(first);
    assertThat(replayed.state()).isEqualTo(ConnectionState.ESTABLISHED); // the ticket is valid
    assertThat(replayed.stats().earlyDataRejected).isEqualTo(1);
    assertThat(replayed.stats().zeroRttDropped).isEqualTo(1);
    assertThat(replayed.streamCount()).isZero(); // the request is not delivered
  }

  @Test
  void aZeroRttPacketAheadOfItsInitialIsDroppedWithoutState() {
    Net net = new Net(tickets);
    SessionTicket ticket = earnTicket(net);
    net.servers.clear();
    Stream[] s = new Stream[1];
    Connection client = resumeWithRequest(ticket, s);
    byte[] first = firstDatagram(client, now);
    ByteBuffer b = ByteBuffer.wrap(first);
    PacketHeader h = new PacketHeader();
    assertThat(h.parse(b, 0, ConnectionId.V1_LENGTH)).isTrue();
    byte[] zeroRttAlone = Arrays.copyOfRange(first, h.packetEnd, first.length);
    assertThat(packetTypes(zeroRttAlone)).startsWith(PacketType.ZERO_RTT);
    int connections = net.demux.connections().size();
    long dropped = net.demux.dropped();
    // RFC 9001 §4.7 lets a server buffer it or drop it: this one drops it, counted, no state.
    assertThat(net.deliver(zeroRttAlone)).isNull();
    assertThat(net.demux.dropped()).isEqualTo(dropped + 1);
    assertThat(net.demux.connections()).hasSize(connections);
    // The whole first datagram still resumes, its request read once.
    Connection server = net.deliver(first);
    assertThat(server.earlyDataAccepted()).isTrue();
    assertThat(read(server, server.stream(s[0].id()))).isEqualTo(REQUEST);
  }

  @Test
  void aRequestLargerThanTheEarlyDataLimitSendsTheRestIn1Rtt() {
    Net net = new Net(tickets, 1_000);
    SessionTicket ticket = earnTicket(net);
    assertThat(ticket.maxEarlyDataBytes()).isEqualTo(1_000);
    Connection client = Connection.client(clientConfig().withResumption(ticket),
        new ConnectionListener() {});
    Stream s = client.openStream();
    byte[] request = new byte[5_000];
    new Random(3).nextBytes(request);
    assertThat(client.write(s, ByteBuffer.wrap(request))).isEqualTo(request.length);
    client.finish(s);
    byte[] first = firstDatagram(client, now);
    // With the limit spent the client waits for the ServerHello: nothing more to send now.
    assertThat(client.pollDatagram(ByteBuffer.allocate(2048), now)).isZero();
    assertThat(client.nextTimeoutNs()).isGreaterThan(now);
    // Nor does its next wake-up find nothing to send and wake it again at once (a spin).
    long wake = client.nextTimeoutNs();
    client.onTimeout(wake);
    ByteBuffer probe = ByteBuffer.allocate(2048);
    while (client.pollDatagram(probe.clear(), wake) > 0) {
      // a PTO probe may go: the INITIAL again, with the oldest early data
    }
    assertThat(client.nextTimeoutNs()).isGreaterThan(wake);
    Connection server = net.deliver(first);
    assertThat(server.streams.receivedTotal()).isPositive().isLessThanOrEqualTo(1_000);
    net.servers.clear();
    net.servers.add(server);
    net.run(client, 30);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.earlyDataAccepted()).isTrue();
    assertThat(read(server, server.stream(s.id()))).isEqualTo(request);
  }

  @Test
  void aTicketForAKeyNoLongerPinnedIsNotUsed() {
    Net net = new Net(tickets);
    SessionTicket t = earnTicket(net);
    SessionTicket other = new SessionTicket(t.ticketId(), new byte[32], new byte[32],
        new dev.tern.transport.udp.handshake.PinnedServerKey(9, new byte[32]), t.cipher(),
        t.lifetimeMillis(), t.receivedAtMillis(), t.maxEarlyDataBytes(), 0, 1 << 20, 1 << 16,
        100);
    Connection client = Connection.client(clientConfig().withResumption(other),
        new ConnectionListener() {});
    assertThat(client.canSendEarlyData()).isFalse();
    assertThat(client.openStream()).isNull();
  }

  private static List<PacketType> packetTypes(byte[] datagram) {
    List<PacketType> types = new ArrayList<>();
    ByteBuffer b = ByteBuffer.wrap(datagram);
    PacketHeader h = new PacketHeader();
    int offset = 0;
    while (offset < datagram.length && h.parse(b, offset, ConnectionId.V1_LENGTH)) {
      types.add(h.type);
      offset = h.packetEnd;
    }
    return types;
  }
}
