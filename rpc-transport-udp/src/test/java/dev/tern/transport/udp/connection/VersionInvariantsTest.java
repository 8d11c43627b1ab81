package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.packet.Versions;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RFC 8999 §6 and RFC 9000 §6.1: a long header of a version the server does not speak is
 * answered with Version Negotiation whatever its type bits, its fixed bit and its connection-ID
 * lengths (the invariants allow up to 255 bytes), provided the datagram is at least 1200 bytes
 * (RFC 9000 §5.2.2); nothing past the invariant fields is parsed.
 */
class VersionInvariantsTest {
  private static final int UNKNOWN = 0x1a2a3a4a;

  private static ServerDemux demux() {
    return new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 1),
        c -> new ConnectionListener() {}, 8);
  }

  /** A long header datagram of {@code size} bytes: first byte, version, IDs, then junk. */
  private static ByteBuffer longHeader(int firstByte, int dcidLength, int scidLength, int size) {
    ByteBuffer b = ByteBuffer.allocate(size);
    b.put((byte) firstByte).putInt(UNKNOWN);
    b.put((byte) dcidLength);
    for (int i = 0; i < dcidLength; i++) {
      b.put((byte) (0x10 + i));
    }
    b.put((byte) scidLength);
    for (int i = 0; i < scidLength; i++) {
      b.put((byte) (0x80 + i));
    }
    while (b.hasRemaining()) {
      b.put((byte) 0xff); // not a valid token length, Length or payload of anything
    }
    return b.flip();
  }

  @ParameterizedTest
  @ValueSource(ints = {0xc0, 0xd0, 0xe0, 0xf0, 0x80, 0x90, 0xa0, 0xb0, 0xff})
  void everyLongHeaderTypeOfAnUnknownVersionGetsVersionNegotiation(int firstByte) {
    ServerDemux demux = demux();
    ByteBuffer reply = ByteBuffer.allocate(2048);
    assertThat(demux.onDatagram(longHeader(firstByte, 8, 8, 1200), 0, 0, reply)).isNull();
    assertThat(demux.versionNegotiationsSent()).isEqualTo(1);
    reply.flip();
    assertThat(reply.get(0) & 0x80).isEqualTo(0x80);
    assertThat(reply.getInt(1)).isZero();
    assertThat(reply.get(5)).isEqualTo((byte) 8); // the client's source ID comes first
    assertThat(reply.get(6) & 0xff).isEqualTo(0x80);
    assertThat(reply.get(14)).isEqualTo((byte) 8);
    assertThat(reply.get(15) & 0xff).isEqualTo(0x10);
    assertThat(reply.getInt(23)).isEqualTo(Versions.V2);
    assertThat(reply.remaining()).isEqualTo(27);
  }

  /**
   * Version 1 is plaintext: a default configuration neither offers it (a client's first INITIAL
   * is version 2) nor accepts it (a version 1 INITIAL is answered with Version Negotiation naming
   * only version 2, and no connection is made).
   */
  @Test
  void theDefaultsNeitherOfferNorAcceptThePlaintextVersion1() {
    assertThat(ConnectionConfig.defaults().versions()).containsExactly(Versions.V2);
    Connection v2Client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 3),
        new ConnectionListener() {});
    assertThat(v2Client.version()).isEqualTo(Versions.V2);
    Connection v1Client = Connection.client(ConnectionConfig.builder().versions(Versions.V1)
        .build(), new ConnectionListener() {});
    ByteBuffer initial = ByteBuffer.allocate(2048);
    assertThat(v1Client.pollDatagram(initial, 0)).isGreaterThanOrEqualTo(1200);
    initial.flip();
    assertThat(initial.getInt(1)).isEqualTo(Versions.V1);
    ServerDemux demux = demux();
    ByteBuffer reply = ByteBuffer.allocate(2048);
    assertThat(demux.onDatagram(initial, 0, 0, reply)).isNull();
    assertThat(demux.connections()).isEmpty();
    assertThat(demux.versionNegotiationsSent()).isEqualTo(1);
    reply.flip();
    assertThat(reply.getInt(1)).isZero(); // Version Negotiation (RFC 8999 §6)
    assertThat(reply.getInt(reply.limit() - 4)).isEqualTo(Versions.V2);
    assertThat(reply.remaining()).isEqualTo(7 + 2 * 8 + 4); // one version listed
  }

  @Test
  void connectionIdsLongerThanVersionOnesAreEchoed() {
    ServerDemux demux = demux();
    ByteBuffer reply = ByteBuffer.allocate(2048);
    assertThat(demux.onDatagram(longHeader(0xc0, 255, 40, 1300), 0, 0, reply)).isNull();
    assertThat(demux.versionNegotiationsSent()).isEqualTo(1);
    reply.flip();
    assertThat(reply.get(5) & 0xff).isEqualTo(40);
    assertThat(reply.get(6 + 40) & 0xff).isEqualTo(255);
    assertThat(reply.get(6 + 40 + 1) & 0xff).isEqualTo(0x10);
    assertThat(reply.remaining()).isEqualTo(1 + 4 + 1 + 40 + 1 + 255 + 4);
  }

  @Test
  void aDatagramBelow1200BytesGetsNoAnswer() {
    ServerDemux demux = demux();
    ByteBuffer reply = ByteBuffer.allocate(2048);
    assertThat(demux.onDatagram(longHeader(0xd0, 8, 8, 1199), 0, 0, reply)).isNull();
    assertThat(reply.position()).isZero();
    assertThat(demux.versionNegotiationsSent()).isZero();
    assertThat(demux.dropped()).isEqualTo(1);
  }

  @Test
  void aVersionNegotiationPacketIsNeverAnswered() {
    ServerDemux demux = demux();
    ByteBuffer reply = ByteBuffer.allocate(2048);
    ByteBuffer vn = longHeader(0x80, 8, 8, 1200);
    vn.putInt(1, 0); // RFC 9000 §6.1: Version Negotiation is not answered
    assertThat(demux.onDatagram(vn, 0, 0, reply)).isNull();
    assertThat(reply.position()).isZero();
    assertThat(demux.versionNegotiationsSent()).isZero();
  }
}
