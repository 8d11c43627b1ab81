package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.frame.TransportError;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The closing and draining states (RFC 9000 §10.2): a closing endpoint answers what arrives with
 * CONNECTION_CLOSE at a falling rate and within the anti-amplification limit, a draining one
 * sends nothing, and both end after three probe timeouts.
 */
@Timeout(60)
class ClosingStateTest {
  private static final long MS = 1_000_000L;

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;
  private Connection client;
  private Connection server;
  private final List<String> serverCloseReasons = new ArrayList<>();

  private void handshake() {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    for (int i = 0; i < 20; i++) {
      now += MS;
      Forge.exchange(client, server, wire, now);
    }
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  /** Polls {@code c} until it has nothing to send; returns the datagrams. */
  private List<byte[]> drain(Connection c) {
    List<byte[]> out = new ArrayList<>();
    while (true) {
      wire.clear();
      int n = c.pollDatagram(wire, now);
      if (n == 0) {
        return out;
      }
      byte[] d = new byte[n];
      wire.flip().get(d);
      out.add(d);
    }
  }

  /** A PING in a 1-RTT packet the client's keys seal, numbered far above what it sent. */
  private ByteBuffer clientPing(long pn) {
    return Forge.oneRtt(client, server.localConnectionId(), pn, SimpleFrames::encodePing);
  }

  @Test
  void aCloseBeforeTheClientsFirstOneRttPacketReachesAClientThatDroppedItsInitialKeys() {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1), new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    now += MS;
    for (byte[] d : drain(server)) {
      client.onDatagram(ByteBuffer.wrap(d), now, 0);
    }
    assertThat(client.state()).as("the client has the server's answer").isEqualTo(ConnectionState.ESTABLISHED);
    drain(client); // lost: the server never sees the client's first 1-RTT packet
    server.close(9, "going away");
    List<byte[]> closes = drain(server);
    assertThat(closes).isNotEmpty();
    for (byte[] d : closes) {
      client.onDatagram(ByteBuffer.wrap(d), now, 0);
    }
    // RFC 9000 §10.2.3: the close came in a 1-RTT packet too, which the client can open.
    assertThat(client.state()).isEqualTo(ConnectionState.DRAINING);
    assertThat(client.closeCode()).isEqualTo(9);
  }

  @Test
  void aFloodAtAClosingEndpointDrawsFarFewerCloses() {
    handshake();
    server.close(7, "done");
    assertThat(server.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(drain(server)).as("the close itself").hasSize(1);
    int flood = 200;
    List<byte[]> answers = new ArrayList<>();
    for (int i = 0; i < flood; i++) {
      server.onDatagram(clientPing(1_000 + i), now, 0);
      answers.addAll(drain(server));
    }
    // RFC 9000 §10.2.1: the 1st, 2nd, 4th, ... 128th packet is answered: at most log2(n) + 1.
    assertThat(answers).hasSizeBetween(1, 8);
    assertThat(server.state()).isEqualTo(ConnectionState.CLOSING);
    // What it answers with is the close: the client reads it and drains.
    client.onDatagram(ByteBuffer.wrap(answers.get(answers.size() - 1)), now, 0);
    assertThat(client.state()).isEqualTo(ConnectionState.DRAINING);
    assertThat(client.closeCode()).isEqualTo(7);
  }

  @Test
  void aClosingServerSendsAnUnvalidatedClientAtMostThreeTimesWhatItReceived() {
    ConnectionConfig serverConfig = ConnectionConfig.builder().maxDatagramBytes(1200).build();
    Connection c = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(serverConfig, 2),
        x -> new ConnectionListener() {}, 4);
    wire.clear();
    long received = c.pollDatagram(wire, now);
    wire.flip();
    server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    long sent = 0;
    // The client (its address perhaps spoofed) never answers: the server sends its flight and
    // probes until the anti-amplification limit stops it.
    for (int i = 0; i < 400; i++) {
      now += 10 * MS;
      if (server.nextTimeoutNs() <= now) {
        server.onTimeout(now);
      }
      for (byte[] d : drain(server)) {
        sent += d.length;
      }
    }
    assertThat(server.path.validated).isFalse();
    assertThat(sent).isPositive().isLessThanOrEqualTo(3 * received);
    // It closes with a long reason: each close is larger than what a small packet allows.
    server.closeWithError(TransportError.PROTOCOL_VIOLATION, 0, "x".repeat(200));
    int closes = 0;
    for (byte[] d : drain(server)) {
      sent += d.length;
      closes++;
    }
    assertThat(sent).isLessThanOrEqualTo(3 * received);
    for (long pn = 1; pn <= 40; pn++) {
      ByteBuffer small = Forge.initial(server.version(), c.originalDcid, c.originalDcid,
          c.localConnectionId(), pn, 60, SimpleFrames::encodePing);
      received += small.remaining();
      server.onDatagram(small, now, 0);
      for (byte[] d : drain(server)) {
        sent += d.length;
        closes++;
      }
      assertThat(sent).as("after %d small INITIALs", pn).isLessThanOrEqualTo(3 * received);
    }
    assertThat(server.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(server.stats().closesBlockedByAmplificationLimit).isPositive();
    assertThat(closes).as("the closes the budget allowed went out").isPositive();
  }

  @Test
  void aDrainingEndpointSendsNothing() {
    handshake();
    client.close(3, "bye");
    List<byte[]> close = drain(client);
    assertThat(close).hasSize(1);
    server.onDatagram(ByteBuffer.wrap(close.get(0)), now, 0);
    assertThat(server.state()).isEqualTo(ConnectionState.DRAINING);
    long sentBefore = server.stats().packetsSent;
    assertThat(server.openStream()).isNull();
    for (int i = 0; i < 50; i++) {
      server.onDatagram(clientPing(1_000 + i), now, 0);
      assertThat(drain(server)).isEmpty();
      now += MS;
      if (server.nextTimeoutNs() <= now) {
        server.onTimeout(now);
      }
      assertThat(drain(server)).isEmpty();
    }
    assertThat(server.stats().packetsSent).isEqualTo(sentBefore);
  }

  @Test
  void closingAndDrainingEndAfterThreeProbeTimeouts() {
    handshake();
    long closingEnd = now + 3 * server.rtt.ptoNs(0);
    server.close(0, "");
    assertThat(server.nextTimeoutNs()).isEqualTo(closingEnd);
    List<byte[]> close = drain(server);
    long drainingEnd = now + 3 * client.rtt.ptoNs(0);
    client.onDatagram(ByteBuffer.wrap(close.get(0)), now, 0);
    assertThat(client.state()).isEqualTo(ConnectionState.DRAINING);
    assertThat(client.nextTimeoutNs()).isEqualTo(drainingEnd);

    server.onTimeout(closingEnd - 1);
    client.onTimeout(drainingEnd - 1);
    assertThat(server.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(client.state()).isEqualTo(ConnectionState.DRAINING);
    server.onTimeout(closingEnd);
    client.onTimeout(drainingEnd);
    assertThat(server.state()).isEqualTo(ConnectionState.CLOSED);
    assertThat(client.state()).isEqualTo(ConnectionState.CLOSED);
    assertThat(server.nextTimeoutNs()).isEqualTo(Long.MAX_VALUE);
    // Gone: a late packet draws nothing.
    now = closingEnd;
    server.onDatagram(clientPing(5_000), now, 0);
    assertThat(drain(server)).isEmpty();
  }

  /**
   * An application closes between the driver's turns, when the connection's clock is the last
   * turn's: with more than three PTOs since then, the driver's timer run and its sends of the turn
   * must still carry the CONNECTION_CLOSE to the peer before the connection ends (the closing
   * period counts from the send, RFC 9000 §10.2).
   */
  @Test
  void aCloseLongAfterTheLastTurnIsStillSentBeforeTheClosingPeriodEnds() {
    handshake();
    drain(client);
    long threePto = 3 * client.rtt.ptoNs(0);
    client.close(5, "shut down");
    // The driver's next turn, much later: timers first, then sends, as the NIO loop runs them.
    now += 10 * threePto;
    if (client.nextTimeoutNs() <= now) {
      client.onTimeout(now);
    }
    assertThat(client.state()).as("not over before its close went out").isEqualTo(ConnectionState.CLOSING);
    List<byte[]> close = drain(client);
    assertThat(close).hasSize(1);
    server.onDatagram(ByteBuffer.wrap(close.get(0)), now, 0);
    assertThat(server.state()).isEqualTo(ConnectionState.DRAINING);
    assertThat(server.closeCode()).isEqualTo(5);
    // The period runs three PTOs from that turn.
    assertThat(client.nextTimeoutNs()).isEqualTo(now + threePto);
    client.onTimeout(now + threePto - 1);
    assertThat(client.state()).isEqualTo(ConnectionState.CLOSING);
    client.onTimeout(now + threePto);
    assertThat(client.state()).isEqualTo(ConnectionState.CLOSED);
  }

  /** A close the peer's silence keeps from being sent still ends three PTOs after the timer found it. */
  @Test
  void aCloseThatCannotBeSentEndsThreeProbeTimeoutsAfterTheTimerRan() {
    handshake();
    client.close(5, "shut down");
    long threePto = 3 * client.rtt.ptoNs(0);
    now += 10 * threePto;
    client.onTimeout(now);
    assertThat(client.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(client.nextTimeoutNs()).isEqualTo(now + threePto);
    client.onTimeout(now + threePto);
    assertThat(client.state()).isEqualTo(ConnectionState.CLOSED);
  }

  @Test
  void anApplicationCloseInAnInitialIsSentAsApplicationErrorWithoutItsReason() {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        x -> new ConnectionListener() {
          @Override
          public void onClosed(Connection connection, TransportError error, long code,
              String reason, boolean byPeer) {
            serverCloseReasons.add(reason);
          }
        }, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    drain(server); // the ServerHello, which the client never reads
    client.close(42, "the application's private state");
    List<byte[]> close = drain(client);
    assertThat(close).hasSize(1);
    assertThat(client.closeCode()).as("reported locally as given").isEqualTo(42);
    server.onDatagram(ByteBuffer.wrap(close.get(0)), now, 0);
    assertThat(server.state()).isEqualTo(ConnectionState.DRAINING);
    // RFC 9000 §10.2.3: anyone can read an INITIAL; the peer learns only APPLICATION_ERROR.
    assertThat(server.closeError()).isEqualTo(TransportError.APPLICATION_ERROR);
    assertThat(server.closeCode()).isEqualTo(TransportError.APPLICATION_ERROR.code());
    assertThat(serverCloseReasons).containsExactly("");
  }
}
