package dev.tern.transport.udp.packet;

import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * A parsed packet header (docs/protocol.md §2): a reusable, mutable view into the datagram; it
 * holds offsets, never copies. {@link #parse} validates every length against the buffer.
 */
public final class PacketHeader {
  /** The packet's type. */
  public PacketType type;
  /** The version (long header) or 0 (short header). */
  public int version;
  /** Absolute offset of the packet's first byte. */
  public int packetStart;
  /** Absolute offset and length of the destination connection ID. */
  public int dcidOffset;
  /** Length of the destination connection ID. */
  public int dcidLength;
  /** Absolute offset of the source connection ID (long header only). */
  public int scidOffset;
  /** Length of the source connection ID (long header only). */
  public int scidLength;
  /** Absolute offset of an INITIAL's Token (RFC 9000 §17.2.2); 0 otherwise. */
  public int tokenOffset;
  /** Length of an INITIAL's Token; 0 if none. */
  public int tokenLength;
  /** Absolute offset of the packet number. */
  public int pnOffset;
  /** Encoded packet-number length, 1..4. */
  public int pnLength;
  /** The truncated packet number as read. */
  public long truncatedPn;
  /** Absolute offset just past the packet (payload and protection trailer included). */
  public int packetEnd;

  /** Resets the view to an empty state. */
  public void clear() {
    type = null;
    version = 0;
    packetStart = dcidOffset = dcidLength = scidOffset = scidLength = 0;
    pnOffset = pnLength = packetEnd = 0;
    tokenOffset = tokenLength = 0;
    truncatedPn = 0;
  }

  /** Absolute offset of the payload (just past the packet number). */
  public int payloadOffset() {
    return pnOffset + pnLength;
  }

  /**
   * Parses the packet starting at absolute {@code offset} up to the buffer's limit. Does not move
   * the buffer's position.
   *
   * @param shortDcidLength the connection-ID length this endpoint issued (short headers carry no
   *     length)
   * @return false if the header is malformed or truncated (the caller drops and counts it)
   */
  public boolean parse(ByteBuffer buf, int offset, int shortDcidLength) {
    clear();
    int limit = buf.limit();
    if (offset >= limit) {
      return false;
    }
    packetStart = offset;
    int first = buf.get(offset) & 0xff;
    int p = offset + 1;
    if ((first & 0x80) == 0) {
      if ((first & 0x40) == 0) {
        return false;
      }
      type = PacketType.ONE_RTT;
      dcidOffset = p;
      dcidLength = shortDcidLength;
      p += shortDcidLength;
      pnLength = (first & 3) + 1;
      return readPn(buf, p, limit) && finish(limit);
    }
    if (p + 5 > limit) {
      return false;
    }
    version = buf.getInt(p);
    p += 4;
    dcidLength = buf.get(p++) & 0xff;
    dcidOffset = p;
    p += dcidLength;
    if (dcidLength > ConnectionId.MAX_LENGTH || p + 1 > limit) {
      return false;
    }
    scidLength = buf.get(p++) & 0xff;
    scidOffset = p;
    p += scidLength;
    if (scidLength > ConnectionId.MAX_LENGTH || p > limit) {
      return false;
    }
    if (version == Versions.NEGOTIATION) {
      type = PacketType.VERSION_NEGOTIATION;
      pnOffset = p;
      packetEnd = limit;
      return true;
    }
    if ((first & 0x40) == 0) {
      return false;
    }
    type = PacketType.ofLongTypeBits(first >>> 4);
    // RFC 9000 §17.2.3: a 0-RTT packet is an INITIAL's header without the token.
    if (type != PacketType.INITIAL && type != PacketType.ZERO_RTT) {
      return false;
    }
    int saved = buf.position();
    try {
      ((Buffer) buf).position(p);
      if (type == PacketType.INITIAL) {
        long tokenLength = VarInt.read(buf);
        if (tokenLength < 0 || tokenLength > buf.remaining()) {
          return false;
        }
        this.tokenOffset = buf.position();
        this.tokenLength = (int) tokenLength;
        ((Buffer) buf).position(buf.position() + (int) tokenLength);
      } else {
        this.tokenOffset = buf.position();
        this.tokenLength = 0; // RFC 9000 §17.2.3: a 0-RTT packet has no Token field
      }
      long length = VarInt.read(buf);
      if (length < 0 || length > buf.remaining()) {
        return false;
      }
      p = buf.position();
      pnLength = (first & 3) + 1;
      if (length < pnLength) {
        return false;
      }
      return readPn(buf, p, p + (int) length) && finish(p + (int) length);
    } finally {
      ((Buffer) buf).position(saved);
    }
  }

  /**
   * Reads the packet number again once header protection is off (RFC 9001 §5.4.1: the length
   * bits of the first byte and the packet number bytes are masked until then); {@link #parse}
   * read them as they were on the wire.
   *
   * @param length the packet number's length the protection layer unmasked, 1..4
   */
  public void readPacketNumber(ByteBuffer buf, int length) {
    pnLength = length;
    long v = 0;
    for (int i = 0; i < length; i++) {
      v = (v << 8) | (buf.get(pnOffset + i) & 0xff);
    }
    truncatedPn = v;
  }

  private boolean readPn(ByteBuffer buf, int p, int limit) {
    if (p + pnLength > limit) {
      return false;
    }
    pnOffset = p;
    long v = 0;
    for (int i = 0; i < pnLength; i++) {
      v = (v << 8) | (buf.get(p + i) & 0xff);
    }
    truncatedPn = v;
    return true;
  }

  private boolean finish(int end) {
    packetEnd = end;
    return true;
  }
}
