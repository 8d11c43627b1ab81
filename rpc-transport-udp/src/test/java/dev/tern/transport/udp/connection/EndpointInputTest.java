package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.frame.ProtocolVectors;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketWriter;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The server endpoint and the handshake message against hostile or documented input. */
class EndpointInputTest {

  @Test
  void randomDatagramsCreateNoStateAndThrowNothing() {
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 1),
        c -> new ConnectionListener() {}, 8);
    Random r = new Random(2);
    ByteBuffer reply = ByteBuffer.allocate(2048);
    byte[] b = new byte[1500];
    int replies = 0;
    for (int i = 0; i < 20_000; i++) {
      r.nextBytes(b);
      if (i % 3 == 0) {
        b[0] = (byte) 0xc0; // looks like an INITIAL of some version
      }
      reply.clear();
      int length = 1 + r.nextInt(b.length);
      assertThat(demux.onDatagram(ByteBuffer.wrap(b, 0, length), i, 0, reply)).isNull();
      if (reply.position() > 0) {
        replies++;
        if ((reply.get(0) & 0x80) == 0) {
          // A stateless reset for a short header of an unknown connection: always smaller.
          assertThat(reply.position()).isLessThan(length);
        }
      }
    }
    assertThat(demux.connections()).isEmpty();
    assertThat(demux.dropped() + demux.versionNegotiationsSent()).isEqualTo(20_000);
    // Every one of the 20,000 came within one second (the clock here is i nanoseconds): the
    // resets stop at the limit.
    assertThat(demux.statelessResetsSent()).isEqualTo(ServerDemux.MAX_RESETS_PER_SECOND);
    assertThat(replies).isEqualTo((int) (demux.versionNegotiationsSent() + demux.statelessResetsSent()));
  }

  @Test
  void aCorruptInitialCreatesNoConnection() {
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 1),
        c -> new ConnectionListener() {}, 8);
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 3),
        new ConnectionListener() {});
    ByteBuffer initial = ByteBuffer.allocate(2048);
    client.pollDatagram(initial, 0);
    initial.flip();
    initial.put(100, (byte) (initial.get(100) ^ 1));
    assertThat(demux.onDatagram(initial.duplicate(), 0, 0, ByteBuffer.allocate(2048))).isNull();
    assertThat(demux.connections()).isEmpty();
    initial.put(100, (byte) (initial.get(100) ^ 1));
    assertThat(demux.onDatagram(initial, 0, 0, ByteBuffer.allocate(2048))).isNotNull();
    assertThat(demux.connections()).hasSize(1);
  }

  @Test
  void versionNegotiationEchoesTheClientsIds() {
    ConnectionId d = ConnectionId.of(HexFormat.of().parseHex("0102030405060708"));
    ConnectionId s = ConnectionId.of(HexFormat.of().parseHex("1112131415161718"));
    ByteBuffer initial = ByteBuffer.allocate(1300);
    int lengthOffset = PacketWriter.writeInitialHeader(initial, 0x0a0a0a0a, d, s, 0, 1);
    initial.put(new byte[1200]);
    PacketWriter.patchLength(initial, lengthOffset, initial.position(), 4);
    initial.putInt(0).flip();
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 1),
        c -> new ConnectionListener() {}, 8);
    ByteBuffer reply = ByteBuffer.allocate(100);
    assertThat(demux.onDatagram(initial, 0, 0, reply)).isNull();
    reply.flip();
    assertThat(reply.getInt(1)).isZero();
    assertThat(s.matches(reply, 6, 8)).isTrue(); // destination = the client's source
    assertThat(d.matches(reply, 15, 8)).isTrue();
    assertThat(reply.getInt(23)).isEqualTo(Versions.V2);
  }

  @Test
  void transportParametersDecodeTheDocumentVector() {
    TransportParameters p = new TransportParameters();
    assertThat(p.decode(ByteBuffer.wrap(ProtocolVectors.hex("transport-params")))).isNull();
    assertThat(p.messageType).isEqualTo(TransportParameters.CLIENT_HELLO);
    assertThat(p.initialSourceConnectionId.toString()).isEqualTo("0102030405060708");
    assertThat(p.rpcVersions).containsExactly(1, 2);
    assertThat(p.initialMaxData).isEqualTo(1048576);
    // Encoding writes the same parameters first, then the rest of ours.
    ByteBuffer out = ByteBuffer.allocate(256);
    p.encode(out);
    out.flip();
    byte[] prefix = new byte[ProtocolVectors.hex("transport-params").length];
    out.get(prefix);
    assertThat(prefix).isEqualTo(ProtocolVectors.hex("transport-params"));
    TransportParameters again = new TransportParameters();
    out.rewind();
    assertThat(again.decode(out)).isNull();
    assertThat(again.initialMaxData).isEqualTo(1048576);
  }

  @Test
  void duplicateOrMissingParametersAreErrors() {
    byte[] dup = HexFormat.of().parseHex("01" + "0f080102030405060708" + "040480100000"
        + "040480100000");
    assertThat(new TransportParameters().decode(ByteBuffer.wrap(dup))).contains("duplicate");
    byte[] missing = HexFormat.of().parseHex("01" + "040480100000");
    assertThat(new TransportParameters().decode(ByteBuffer.wrap(missing)))
        .contains("initial_source_connection_id");
  }
}
