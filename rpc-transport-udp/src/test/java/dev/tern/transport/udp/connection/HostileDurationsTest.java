package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Durations and counts a peer chooses (transport parameters, ACK Delay) cannot overflow the
 * connection's time arithmetic: every timer stays in the future and the RTT estimate sane.
 */
@Timeout(30)
class HostileDurationsTest {
  private static final long MS = 1_000_000L;
  /** An ACK Delay field whose {@code << 3} then {@code * 1000} wraps to about -2.3e18 ns. */
  private static final long WRAPPING_ACK_DELAY = 4611397787322306314L;

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;

  private static ConnectionId cid(String hex) {
    return ConnectionId.of(HexFormat.of().parseHex(hex));
  }

  @Test
  void aHugeMaxIdleTimeoutInTheClientHelloLeavesTheServerTimersInTheFuture() {
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 1),
        c -> new ConnectionListener() {}, 4);
    ConnectionId scid = cid("1112131415161718");
    TransportParameters hello = Forge.clientHello(scid, Versions.V2);
    hello.maxIdleTimeoutMs = 9_300_000_000_000L; // x 1e6 is past Long.MAX_VALUE ns
    Connection server = demux.onDatagram(
        Forge.initial(Versions.V2, cid("0102030405060708"), scid, 0, hello), now, 0,
        ByteBuffer.allocate(2048));
    assertThat(server).isNotNull();
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThatCode(server::nextTimeoutNs).doesNotThrowAnyException();
    ByteBuffer out = ByteBuffer.allocate(2048);
    while (server.pollDatagram(out.clear(), now) > 0) {
      // the ServerHello flight: everything due now
    }
    assertThat(server.nextTimeoutNs()).isGreaterThan(now);
    // The idle timeout in force is ours: the peer's is larger (RFC 9000 §10.1: the minimum).
    assertThat(server.idleTimeoutNs).isEqualTo(ConnectionConfig.defaults().idleTimeoutMs * MS);
    server.onTimeout(now + 1_000 * MS);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  @Test
  void anAckDelayThatWrapsLeavesTheRttAndTheProbeTimerSane() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    for (int i = 0; i < 20; i++) {
      now += MS;
      exchange(client, server);
    }
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    Stream s = server.openStream();
    assertThat(s).isNotNull();
    long pn = 1000;
    for (int round = 0; round < 3; round++) {
      server.write(s, ByteBuffer.wrap(new byte[100]));
      wire.clear();
      assertThat(server.pollDatagram(wire, now)).isPositive(); // never delivered
      long largest = server.log.nextPacketNumber() - 1;
      now += 10 * MS;
      server.onDatagram(Forge.oneRtt(client, server.localConnectionId(), pn++,
          b -> Forge.ack(b, largest, 0, WRAPPING_ACK_DELAY)), now, 0);
      assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
      assertThat(server.rtt().smoothedRttNs()).isBetween(1L, 1_000 * MS);
      assertThat(server.rtt().rttVarNs()).isBetween(0L, 1_000 * MS);
    }
    server.write(s, ByteBuffer.wrap(new byte[100]));
    wire.clear();
    assertThat(server.pollDatagram(wire, now)).isPositive();
    long timer = server.nextTimeoutNs();
    assertThat(timer).isGreaterThan(now).isLessThan(now + 60_000 * MS);
    server.close(0, "done");
    assertThat(server.nextTimeoutNs()).isGreaterThan(now);
  }

  @Test
  void parametersOutsideTheirRfcRangesAreTransportParameterErrors() {
    // 0a 01 15: ack_delay_exponent = 21; 08 08 d0..: initial_max_streams = 2^60 + 1.
    String iscid = "0f080102030405060708";
    assertThat(new TransportParameters().decode(
        ByteBuffer.wrap(HexFormat.of().parseHex("01" + iscid + "0a0115"))))
        .contains("ack_delay_exponent");
    assertThat(new TransportParameters().decode(
        ByteBuffer.wrap(HexFormat.of().parseHex("01" + iscid + "0a0114")))).isNull();
    assertThat(new TransportParameters().decode(
        ByteBuffer.wrap(HexFormat.of().parseHex("01" + iscid + "0808d000000000000001"))))
        .contains("initial_max_streams");
    assertThat(new TransportParameters().decode(
        ByteBuffer.wrap(HexFormat.of().parseHex("01" + iscid + "0b0480004000"))))
        .contains("max_ack_delay");
  }

  @Test
  void maxStreamsAboveTwoToTheSixtyIsAFrameEncodingError() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    for (int i = 0; i < 20; i++) {
      now += MS;
      exchange(client, server);
    }
    server.onDatagram(Forge.oneRtt(client, server.localConnectionId(), 1000, b -> {
      b.put((byte) 0x12);
      dev.tern.transport.udp.packet.VarInt.write(b, (1L << 60) + 1);
    }), now, 0);
    assertThat(server.closeError())
        .isEqualTo(dev.tern.transport.udp.frame.TransportError.FRAME_ENCODING_ERROR);
  }

  private void exchange(Connection client, Connection server) {
    Forge.exchange(client, server, wire, now);
  }
}
