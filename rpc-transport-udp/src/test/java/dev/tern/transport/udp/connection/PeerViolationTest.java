package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.StreamLimits;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Limits a broken or hostile peer runs into: the 3x anti-amplification limit, stream limits and
 * flow-control windows. Violations close the connection with the matching error code.
 */
class PeerViolationTest {
  private static final long MS = 1_000_000L;

  private Connection client;
  private Connection server;
  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now;

  private void handshake(ConnectionConfig serverConfig) {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(serverConfig, 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    for (int i = 0; i < 20; i++) {
      now += MS;
      exchange();
    }
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  private void exchange() {
    Forge.exchange(client, server, wire, now);
  }

  /** Sends the server a well-formed 1-RTT packet whose payload {@code frames} writes. */
  private void inject(long packetNumber, Consumer<ByteBuffer> frames) {
    server.onDatagram(Forge.oneRtt(client, server.localConnectionId(), packetNumber, frames), now,
        0);
  }

  private static void streamFrame(ByteBuffer b, long id, long offset, int length) {
    StreamFrame.encodeHeader(b, id, offset, length, false);
    b.put(new byte[length]);
  }

  @Test
  void serverSendsAtMostThreeTimesWhatAnUnvalidatedClientSent() {
    Connection c = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        x -> new ConnectionListener() {}, 4);
    wire.clear();
    int received = c.pollDatagram(wire, 0);
    wire.flip();
    Connection s = demux.onDatagram(wire, 0, 0, ByteBuffer.allocate(2048));
    long sent = 0;
    // The client never answers; the server retransmits on its probe timer for a minute.
    for (long t = 0; t < 60_000 * MS; t += 10 * MS) {
      if (s.nextTimeoutNs() <= t) {
        s.onTimeout(t);
      }
      wire.clear();
      int n;
      while ((n = s.pollDatagram(wire, t)) > 0) {
        sent += n;
        wire.clear();
      }
    }
    assertThat(sent).isPositive().isLessThanOrEqualTo(3L * received);
  }

  @Test
  void streamBeyondTheLimitIsAStreamLimitError() {
    handshake(ConnectionConfig.builder()
        .limits(new StreamLimits(1 << 20, 64 << 10, 3, 64 << 10)).build());
    inject(1000, b -> streamFrame(b, 4 * 3, 0, 10)); // the fourth client stream
    assertThat(server.state()).isEqualTo(ConnectionState.CLOSING);
    assertThat(server.closeError()).isEqualTo(TransportError.STREAM_LIMIT_ERROR);
  }

  @Test
  void dataBeyondTheStreamWindowIsAFlowControlError() {
    handshake(ConnectionConfig.builder()
        .limits(new StreamLimits(1 << 20, 10_000, 10, 64 << 10)).build());
    inject(1000, b -> streamFrame(b, 0, 9_995, 10));
    assertThat(server.closeError()).isEqualTo(TransportError.FLOW_CONTROL_ERROR);
  }

  @Test
  void dataBeyondTheConnectionWindowIsAFlowControlError() {
    handshake(ConnectionConfig.builder()
        .limits(new StreamLimits(15_000, 10_000, 10, 64 << 10)).build());
    inject(1000, b -> streamFrame(b, 0, 0, 1000));
    inject(1001, b -> streamFrame(b, 4, 9_000, 1000));
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    inject(1002, b -> streamFrame(b, 8, 4_000, 1001)); // 10,000 + 5,001 > 15,000
    assertThat(server.closeError()).isEqualTo(TransportError.FLOW_CONTROL_ERROR);
  }

  @Test
  void serverStreamIdsFromTheClientAreStreamStateErrors() {
    handshake(ConnectionConfig.defaults());
    inject(1000, b -> streamFrame(b, 1, 0, 10)); // server-initiated ID, never opened
    assertThat(server.closeError()).isEqualTo(TransportError.STREAM_STATE_ERROR);
  }

  @Test
  void theCloseReachesThePeerWithItsCode() {
    handshake(ConnectionConfig.defaults());
    inject(1000, b -> streamFrame(b, 2, 0, 10)); // unidirectional: not in version 1
    assertThat(server.closeError()).isEqualTo(TransportError.STREAM_STATE_ERROR);
    now += MS;
    exchange();
    assertThat(client.state()).isEqualTo(ConnectionState.DRAINING);
    assertThat(client.closeError()).isEqualTo(TransportError.STREAM_STATE_ERROR);
  }
}
