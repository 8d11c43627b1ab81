package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * CRYPTO: handshake data (RFC 9000 §19.6; docs/protocol.md §6). A reusable view: the data is a
 * slice of the decoded buffer.
 */
public final class CryptoFrame {
  /** Offset of the data in the handshake stream. */
  public long offset;
  /** Data length, bytes. */
  public int length;
  /** Absolute offset of the data in {@link #source}. */
  public int dataOffset;
  /** The buffer {@link #dataOffset} refers to. */
  public ByteBuffer source;

  /** Writes the frame header; the caller writes {@code length} data bytes right after it. */
  public static void encodeHeader(ByteBuffer out, long offset, int length) {
    out.put((byte) FrameType.CRYPTO);
    VarInt.write(out, offset);
    VarInt.write(out, length);
  }

  /** Bytes of the frame header for these values. */
  public static int headerLength(long offset, int length) {
    return 1 + VarInt.size(offset) + VarInt.size(length);
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    source = in;
    offset = VarInt.read(in);
    long len = VarInt.read(in);
    if (offset < 0 || len < 0 || len > in.remaining() || offset + len > VarInt.MAX) {
      return false;
    }
    length = (int) len;
    dataOffset = in.position();
    ((Buffer) in).position(dataOffset + length);
    return true;
  }
}
