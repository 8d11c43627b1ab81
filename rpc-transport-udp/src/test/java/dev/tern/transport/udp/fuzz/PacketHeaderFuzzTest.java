package dev.tern.transport.udp.fuzz;

import static dev.tern.transport.udp.fuzz.ServerHarness.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketNumber;
import dev.tern.transport.udp.packet.PacketType;
import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/**
 * The packet layer's decoders over arbitrary bytes: {@link PacketHeader#parse} (long and short
 * headers), {@link ConnectionId} reads, {@link PacketNumber#decode} and {@link VarInt#read}.
 * None may throw, and what they return must lie inside the datagram and follow the RFC's rules.
 */
class PacketHeaderFuzzTest {

  /**
   * The first byte picks the short-header connection-ID length (0..20); the rest is a datagram,
   * parsed packet after packet the way the receive path does.
   */
  @FuzzTest
  void headers(byte[] input) {
    if (input.length < 1) {
      return;
    }
    int shortDcidLength = (input[0] & 0xff) % (ConnectionId.MAX_LENGTH + 1);
    ByteBuffer datagram = ByteBuffer.wrap(input, 1, input.length - 1).slice();
    PacketHeader h = new PacketHeader();
    int offset = 0;
    int limit = datagram.limit();
    while (offset < limit) {
      boolean ok = h.parse(datagram, offset, shortDcidLength);
      check(datagram.position() == 0 && datagram.limit() == limit, () -> "parse moved the buffer");
      if (!ok) {
        break;
      }
      checkHeader(datagram, h, offset, shortDcidLength);
      if (h.type == PacketType.VERSION_NEGOTIATION || h.type == PacketType.ONE_RTT) {
        break; // both run to the end of the datagram
      }
      offset = h.packetEnd;
    }
    varInts(datagram);
  }

  private static void checkHeader(ByteBuffer b, PacketHeader h, int offset, int shortDcidLength) {
    int limit = b.limit();
    check(h.type != null, () -> "a parsed header has a type");
    check(h.packetStart == offset, () -> "packetStart " + h.packetStart + " != " + offset);
    check(h.packetEnd > offset && h.packetEnd <= limit, () -> "packetEnd " + h.packetEnd
        + " outside (" + offset + ", " + limit + "]");
    inside(h.dcidOffset, h.dcidLength, offset, h.packetEnd, "destination connection ID");
    check(h.dcidLength <= ConnectionId.MAX_LENGTH, () -> "dcid length " + h.dcidLength);
    if (h.type == PacketType.ONE_RTT) {
      check(h.dcidLength == shortDcidLength, () -> "short header dcid length " + h.dcidLength);
    } else {
      inside(h.scidOffset, h.scidLength, offset, h.packetEnd, "source connection ID");
      check(h.scidLength <= ConnectionId.MAX_LENGTH, () -> "scid length " + h.scidLength);
    }
    if (h.type != PacketType.VERSION_NEGOTIATION) {
      // RFC 9000 §17.1: 1 to 4 bytes of packet number, inside the packet.
      check(h.pnLength >= 1 && h.pnLength <= 4, () -> "pn length " + h.pnLength);
      inside(h.pnOffset, h.pnLength, offset, h.packetEnd, "packet number");
      check(h.truncatedPn >= 0 && h.truncatedPn < 1L << (8 * h.pnLength),
          () -> "truncated pn " + h.truncatedPn + " in " + h.pnLength + " bytes");
      packetNumbers(h.truncatedPn, h.pnLength, b, h.pnOffset);
    }
    ConnectionId dcid = ConnectionId.read(b, h.dcidOffset, h.dcidLength);
    check(dcid.matches(b, h.dcidOffset, h.dcidLength), () -> "a connection ID matches its own bytes");
    check(dcid.length() == h.dcidLength, () -> "connection ID length");
    int serverId = ConnectionId.serverIdOf(b, h.dcidOffset, h.dcidLength);
    check(serverId >= -1 && serverId <= 0xffff, () -> "server id " + serverId);
  }

  /**
   * RFC 9000 Appendix A.3 against every largest-received the datagram's bytes suggest: the result
   * carries the truncated bits and is the candidate closest to the expected number.
   */
  private static void packetNumbers(long truncated, int pnLength, ByteBuffer b, int at) {
    int bits = 8 * pnLength;
    long win = 1L << bits;
    long[] largests = {-1, 0, truncated, win - 1, win, PacketNumber.MAX - win, read8(b, at)};
    for (long largest : largests) {
      long pn = PacketNumber.decode(largest, truncated, bits);
      check((pn & (win - 1)) == truncated, () -> "decode(" + largest + ", " + truncated + ", " + bits
          + ") = " + pn + " lost the truncated bits");
      check(pn >= 0 && pn <= PacketNumber.MAX, () -> "decode(" + largest + ", " + truncated + ", "
          + bits + ") = " + pn + " outside 0..2^62-1");
      long expected = largest + 1;
      check(Math.abs(pn - expected) <= win / 2 || pn < win || pn > PacketNumber.MAX - win,
          () -> "decode(" + largest + ", " + truncated + ", " + bits + ") = " + pn
              + " is not the candidate closest to " + expected);
    }
  }

  /** 62 bits from the datagram at {@code at} (wrapping), as a plausible largest received. */
  private static long read8(ByteBuffer b, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b.get((at + i) % b.limit()) & 0xff);
    }
    return v & PacketNumber.MAX >>> 1; // below 2^61 so that expected + window stays in range
  }

  /** Reads the datagram as a run of varints: each in range and re-encoding to its own value. */
  private static void varInts(ByteBuffer datagram) {
    ByteBuffer in = datagram.duplicate();
    ByteBuffer again = ByteBuffer.allocate(8);
    while (in.hasRemaining()) {
      int before = in.position();
      long v = VarInt.read(in);
      if (v == VarInt.MALFORMED) {
        check(in.position() == before, () -> "a failed read moved the buffer");
        check(in.remaining() < 1 << ((in.get(before) & 0xff) >>> 6), () -> "read failed with "
            + in.remaining() + " bytes left");
        return;
      }
      int consumed = in.position() - before;
      check(v >= 0 && v <= VarInt.MAX, () -> "varint " + v);
      check(consumed == 1 << ((datagram.get(before) & 0xff) >>> 6), () -> "consumed " + consumed);
      check(VarInt.size(v) <= consumed, () -> "shortest encoding of " + v + " longer than " + consumed);
      again.clear();
      VarInt.write(again, v);
      again.flip();
      check(VarInt.read(again) == v && !again.hasRemaining(), () -> "varint round trip of " + v);
    }
  }

  private static void inside(int offset, int length, int start, int end, String what) {
    check(length >= 0 && offset >= start && offset + length <= end, () -> what + " at " + offset + "+"
        + length + " outside the packet [" + start + ", " + end + ")");
  }
}
