package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketNumber;
import dev.tern.transport.udp.packet.PacketProtection;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * An on-path attacker's rewrite of an INITIAL: Initial keys are derived from the client's first
 * Destination Connection ID (RFC 9001 §5.2), so anyone who sees it can open an INITIAL, change
 * its frames and seal it again. What such a rewrite can and cannot do is the point of the tests.
 */
final class Tamper {
  private Tamper() {}

  /**
   * Opens the first packet of {@code datagram} (an INITIAL) with {@code readKeys}, lets
   * {@code edit} change its plaintext payload (a view from the first payload byte to the tag),
   * and seals it again with {@code writeKeys}, in place.
   */
  static void rewriteInitial(ByteBuffer datagram, PacketProtection readKeys,
      PacketProtection writeKeys, Consumer<ByteBuffer> edit) {
    PacketHeader h = new PacketHeader();
    if (!h.parse(datagram, datagram.position(), ConnectionId.V1_LENGTH)) {
      throw new AssertionError("not a packet");
    }
    int pnLength = readKeys.removeHeaderProtection(datagram, h.packetStart, h.pnOffset,
        h.packetEnd);
    h.readPacketNumber(datagram, pnLength);
    long pn = PacketNumber.decode(-1, h.truncatedPn, 8 * pnLength);
    int payloadEnd = readKeys.open(datagram, h.packetStart, h.payloadOffset(), h.packetEnd, pn);
    if (payloadEnd < 0) {
      throw new AssertionError("the INITIAL does not open with these keys");
    }
    ByteBuffer payload = datagram.duplicate();
    payload.limit(payloadEnd).position(h.payloadOffset());
    edit.accept(payload.slice());
    int saved = datagram.position();
    datagram.position(payloadEnd);
    writeKeys.seal(datagram, h.packetStart, h.payloadOffset(), pn);
    writeKeys.applyHeaderProtection(datagram, h.packetStart, h.pnOffset);
    datagram.position(saved);
  }

  /**
   * Flips one bit of byte {@code index} of the handshake message carried in the payload's CRYPTO
   * frame (type 0x06, offset 0, a 2-byte length, then the message, whose first byte is its type:
   * 0x01 or 0x02 for a ClientHello, 0x03 for a ServerHello). Frames before it (an ACK) are
   * skipped by looking for that pattern.
   */
  static void flipHandshakeByte(ByteBuffer payload, int index) {
    for (int i = 0; i + 4 < payload.limit(); i++) {
      int type = payload.get(i + 4) & 0xff;
      if (payload.get(i) == 0x06 && payload.get(i + 1) == 0
          && (payload.get(i + 2) & 0xc0) == 0x40 && type >= 1 && type <= 3) {
        int at = i + 4 + index;
        payload.put(at, (byte) (payload.get(at) ^ 0x01));
        return;
      }
    }
    throw new AssertionError("no CRYPTO frame with a handshake message in the payload");
  }
}
