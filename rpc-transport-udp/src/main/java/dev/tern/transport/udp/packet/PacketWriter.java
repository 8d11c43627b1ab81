package dev.tern.transport.udp.packet;

import java.nio.ByteBuffer;

/** Writes packet headers (docs/protocol.md §2, §3) into the caller's buffer. Stateless. */
public final class PacketWriter {
  private PacketWriter() {}

  /**
   * Writes an INITIAL long header up to and including the packet number. The Length field is
   * reserved as a two-byte varint and must be filled in with {@link #patchLength} once the
   * payload is written.
   *
   * @return the absolute offset of the Length field
   */
  public static int writeInitialHeader(ByteBuffer out, int version, ConnectionId dcid,
      ConnectionId scid, long packetNumber, int pnLength) {
    return writeInitialHeader(out, version, dcid, scid, null, packetNumber, pnLength);
  }

  /**
   * As {@link #writeInitialHeader(ByteBuffer, int, ConnectionId, ConnectionId, long, int)}, with
   * {@code token} in the Token field (RFC 9000 §17.2.2; a client's, from a Retry or NEW_TOKEN;
   * null or empty: none).
   */
  public static int writeInitialHeader(ByteBuffer out, int version, ConnectionId dcid,
      ConnectionId scid, byte[] token, long packetNumber, int pnLength) {
    out.put((byte) (0xc0 | (pnLength - 1)));
    out.putInt(version);
    out.put((byte) dcid.length());
    dcid.write(out);
    out.put((byte) scid.length());
    scid.write(out);
    if (token == null) {
      VarInt.write(out, 0);
    } else {
      VarInt.write(out, token.length);
      out.put(token);
    }
    int lengthOffset = out.position();
    out.putShort((short) 0x4000);
    PacketNumber.write(out, packetNumber, pnLength);
    return lengthOffset;
  }

  /**
   * Writes a 0-RTT long header (RFC 9000 §17.2.3: type 0x1, no token) up to and including the
   * packet number; the Length field is reserved as for {@link #writeInitialHeader}.
   *
   * @return the absolute offset of the Length field
   */
  public static int writeZeroRttHeader(ByteBuffer out, int version, ConnectionId dcid,
      ConnectionId scid, long packetNumber, int pnLength) {
    out.put((byte) (0xd0 | (pnLength - 1)));
    out.putInt(version);
    out.put((byte) dcid.length());
    dcid.write(out);
    out.put((byte) scid.length());
    scid.write(out);
    int lengthOffset = out.position();
    out.putShort((short) 0x4000);
    PacketNumber.write(out, packetNumber, pnLength);
    return lengthOffset;
  }

  /**
   * Fills in the Length field reserved by {@link #writeInitialHeader}: everything from the
   * packet number to {@code packetEnd}, plus the protection trailer of {@code overheadBytes}.
   */
  public static void patchLength(ByteBuffer out, int lengthOffset, int packetEnd,
      int overheadBytes) {
    int length = packetEnd - (lengthOffset + 2) + overheadBytes;
    if (length > 16383) {
      throw new IllegalStateException("packet too long for a two-byte Length: " + length);
    }
    out.putShort(lengthOffset, (short) (0x4000 | length));
  }

  /** Writes a short header up to and including the packet number. */
  public static void writeShortHeader(ByteBuffer out, ConnectionId dcid, long packetNumber,
      int pnLength) {
    out.put((byte) (0x40 | (pnLength - 1)));
    dcid.write(out);
    PacketNumber.write(out, packetNumber, pnLength);
  }

  /**
   * Writes a Version Negotiation packet (docs/protocol.md §3) answering a client whose packet
   * carried {@code clientDcid} and {@code clientScid}: the IDs are echoed swapped.
   */
  public static void writeVersionNegotiation(ByteBuffer out, int firstByteBits, ByteBuffer in,
      int clientDcidOffset, int clientDcidLength, int clientScidOffset, int clientScidLength,
      int[] versions) {
    out.put((byte) (0x80 | (firstByteBits & 0x7f)));
    out.putInt(Versions.NEGOTIATION);
    out.put((byte) clientScidLength);
    for (int i = 0; i < clientScidLength; i++) {
      out.put(in.get(clientScidOffset + i));
    }
    out.put((byte) clientDcidLength);
    for (int i = 0; i < clientDcidLength; i++) {
      out.put(in.get(clientDcidOffset + i));
    }
    for (int v : versions) {
      out.putInt(v);
    }
  }
}
