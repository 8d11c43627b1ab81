package dev.tern.transport.udp.packet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.ProtocolVectors;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Varints, packet numbers and packet headers against RFC 9000 and docs/protocol.md vectors. */
class PacketGoldenTest {
  private static final HexFormat HEX = HexFormat.of();

  private static String token(String line, String key) {
    for (String t : line.split("\\s+")) {
      if (t.startsWith(key + "=")) {
        return t.substring(key.length() + 1);
      }
    }
    throw new AssertionError(key + " missing in " + line);
  }

  @Test
  void varintsOfRfc9000AppendixA1() {
    // RFC 9000 Appendix A.1 sample encodings.
    String[][] cases = {{"c2197c5eff14e88c", "151288809941952652"}, {"9d7f3e7d", "494878333"},
        {"7bbd", "15293"}, {"25", "37"}, {"4025", "37"}};
    for (String[] c : cases) {
      ByteBuffer in = ByteBuffer.wrap(HEX.parseHex(c[0]));
      assertThat(VarInt.read(in)).isEqualTo(Long.parseLong(c[1]));
      assertThat(in.hasRemaining()).isFalse();
    }
    ByteBuffer out = ByteBuffer.allocate(8);
    VarInt.write(out, 151288809941952652L);
    assertThat(HEX.formatHex(out.array())).isEqualTo("c2197c5eff14e88c");
  }

  @Test
  void varintRoundTripsAndRejectsTruncation() {
    Random r = new Random(7);
    ByteBuffer buf = ByteBuffer.allocate(8);
    for (int i = 0; i < 10_000; i++) {
      long v = r.nextLong() >>> (2 + r.nextInt(62));
      buf.clear();
      VarInt.write(buf, v);
      int size = buf.position();
      assertThat(size).isEqualTo(VarInt.size(v));
      buf.flip();
      assertThat(VarInt.read(buf)).isEqualTo(v);
      buf.position(0).limit(size - 1);
      assertThat(VarInt.read(buf)).isEqualTo(size == 1 ? VarInt.MALFORMED : VarInt.MALFORMED);
      assertThat(buf.position()).isZero();
    }
  }

  @Test
  void packetNumbersFollowTheDocumentVectors() {
    for (String line : ProtocolVectors.lines("pn-decode")) {
      long largest = Long.parseLong(token(line, "largest"), 16);
      long truncated = Long.parseLong(token(line, "truncated"), 16);
      int bits = Integer.parseInt(token(line, "bits"));
      long expected = Long.parseLong(line.substring(line.indexOf("->") + 2).trim(), 16);
      assertThat(PacketNumber.decode(largest, truncated, bits)).isEqualTo(expected);
    }
    for (String line : ProtocolVectors.lines("pn-encode")) {
      long pn = Long.parseLong(token(line, "pn"), 16);
      long acked = Long.parseLong(token(line, "largest-acked"), 16);
      String after = line.substring(line.indexOf("->") + 2);
      int length = Integer.parseInt(after.replaceAll(".*length (\\d+).*", "$1"));
      String bytes = after.replaceAll(".*bytes ([0-9a-f]+).*", "$1");
      assertThat(PacketNumber.encodedLength(pn, acked)).isEqualTo(length);
      ByteBuffer out = ByteBuffer.allocate(4);
      PacketNumber.write(out, pn, length);
      out.flip();
      byte[] b = new byte[out.remaining()];
      out.get(b);
      assertThat(HEX.formatHex(b)).isEqualTo(bytes);
    }
  }

  @Test
  void packetNumbersRoundTripThroughTruncation() {
    Random r = new Random(11);
    for (int i = 0; i < 10_000; i++) {
      long acked = r.nextInt(1 << 30);
      long pn = acked + 1 + r.nextInt(1 << 20);
      int len = PacketNumber.encodedLength(pn, acked);
      long truncated = pn & ((1L << (8 * len)) - 1);
      // The receiver has seen anything between the largest acked and pn.
      long largestReceived = acked + r.nextInt((int) (pn - acked));
      assertThat(PacketNumber.decode(largestReceived, truncated, 8 * len)).isEqualTo(pn);
    }
  }

  @Test
  void shortHeaderPacketMatchesTheVectorAndOpens() {
    String line = ProtocolVectors.lines("packet-short").get(0);
    byte[] expected = ProtocolVectors.leadingHex(line.substring(line.indexOf("->") + 2));
    ConnectionId dcid = ConnectionId.of(HEX.parseHex(token(line, "dcid")));
    ByteBuffer out = ByteBuffer.allocate(64);
    PlaintextProtection protection = new PlaintextProtection();
    PacketWriter.writeShortHeader(out, dcid, 5, 1);
    int payloadOffset = out.position();
    out.put((byte) 0x01);
    protection.seal(out, 0, payloadOffset, 5);
    out.flip();
    byte[] b = new byte[out.remaining()];
    out.get(b);
    assertThat(HEX.formatHex(b)).isEqualTo(HEX.formatHex(expected));

    ByteBuffer in = ByteBuffer.wrap(expected);
    PacketHeader h = new PacketHeader();
    assertThat(h.parse(in, 0, 8)).isTrue();
    assertThat(h.type).isEqualTo(PacketType.ONE_RTT);
    assertThat(dcid.matches(in, h.dcidOffset, h.dcidLength)).isTrue();
    assertThat(h.truncatedPn).isEqualTo(5);
    assertThat(protection.open(in, 0, h.payloadOffset(), h.packetEnd, 5))
        .isEqualTo(expected.length - 4);
    in.put(h.payloadOffset(), (byte) 0x02); // corruption is detected
    assertThat(protection.open(in, 0, h.payloadOffset(), h.packetEnd, 5)).isEqualTo(-1);
  }

  @Test
  void initialPacketMatchesTheVector() {
    String line = ProtocolVectors.lines("packet-initial").get(0);
    byte[] expected = ProtocolVectors.leadingHex(line.substring(line.indexOf("->") + 2));
    ConnectionId dcid = ConnectionId.of(HEX.parseHex(token(line, "dcid")));
    ConnectionId scid = ConnectionId.of(HEX.parseHex(token(line, "scid")));
    ByteBuffer out = ByteBuffer.allocate(128);
    int lengthOffset = PacketWriter.writeInitialHeader(out, Versions.V1, dcid, scid, 0, 1);
    int payloadOffset = out.position();
    out.put(HEX.parseHex(token(line, "payload")));
    PacketWriter.patchLength(out, lengthOffset, out.position(), PlaintextProtection.TRAILER_BYTES);
    new PlaintextProtection().seal(out, 0, payloadOffset, 0);
    out.flip();
    byte[] b = new byte[out.remaining()];
    out.get(b);
    assertThat(HEX.formatHex(b)).isEqualTo(HEX.formatHex(expected));
    PacketHeader h = new PacketHeader();
    ByteBuffer in = ByteBuffer.wrap(expected);
    assertThat(h.parse(in, 0, 8)).isTrue();
    assertThat(h.type).isEqualTo(PacketType.INITIAL);
    assertThat(h.packetEnd).isEqualTo(expected.length);
    assertThat(new PlaintextProtection().open(in, 0, h.payloadOffset(), h.packetEnd, 0))
        .isEqualTo(expected.length - 4);
  }

  @Test
  void versionNegotiationMatchesTheVector() {
    byte[] expected = ProtocolVectors.hex("vn-packet");
    ByteBuffer client = ByteBuffer.wrap(HEX.parseHex("0202020202020202" + "0101010101010101"));
    ByteBuffer out = ByteBuffer.allocate(64);
    PacketWriter.writeVersionNegotiation(out, 0x0a, client, 0, 8, 8, 8,
        new int[] {0x544e0002, Versions.V1});
    out.flip();
    byte[] b = new byte[out.remaining()];
    out.get(b);
    assertThat(HEX.formatHex(b)).isEqualTo(HEX.formatHex(expected));
    PacketHeader h = new PacketHeader();
    assertThat(h.parse(ByteBuffer.wrap(expected), 0, 8)).isTrue();
    assertThat(h.type).isEqualTo(PacketType.VERSION_NEGOTIATION);
    assertThat(h.packetEnd - h.pnOffset).isEqualTo(8);
  }

  @Test
  void initialHeaderRoundTripsAndTruncationsAreRejected() {
    Random r = new Random(3);
    ConnectionId d = ConnectionId.random(r);
    ConnectionId s = ConnectionId.forServer(r, 1, 0x1234);
    assertThat(ConnectionId.serverIdOf(ByteBuffer.wrap(bytes(s)), 0, 8)).isEqualTo(0x1234);
    ByteBuffer out = ByteBuffer.allocate(1400);
    int lengthOffset = PacketWriter.writeInitialHeader(out, Versions.V1, d, s, 77, 2);
    int payloadOffset = out.position();
    out.put(new byte[100]);
    PacketWriter.patchLength(out, lengthOffset, out.position(), 4);
    new PlaintextProtection().seal(out, 0, payloadOffset, 77);
    int end = out.position();
    out.flip();
    PacketHeader h = new PacketHeader();
    assertThat(h.parse(out, 0, 8)).isTrue();
    assertThat(h.type).isEqualTo(PacketType.INITIAL);
    assertThat(h.version).isEqualTo(Versions.V1);
    assertThat(d.matches(out, h.dcidOffset, h.dcidLength)).isTrue();
    assertThat(s.matches(out, h.scidOffset, h.scidLength)).isTrue();
    assertThat(h.truncatedPn).isEqualTo(77);
    assertThat(h.packetEnd).isEqualTo(end);
    for (int cut = 0; cut < end; cut++) {
      out.limit(cut);
      assertThat(h.parse(out, 0, 8)).as("cut at %d", cut).isFalse();
    }
  }

  private static byte[] bytes(ConnectionId id) {
    byte[] b = new byte[id.length()];
    for (int i = 0; i < b.length; i++) {
      b[i] = id.byteAt(i);
    }
    return b;
  }
}
