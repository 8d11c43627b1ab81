package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * STREAM (RFC 9000 §19.8; docs/protocol.md §6). A reusable view: the data is a slice
 * ({@link #dataOffset}, {@link #length}) of the decoded buffer, never a copy.
 */
public final class StreamFrame {
  /** The stream. */
  public long streamId;
  /** Offset of the first data byte in the stream. */
  public long offset;
  /** Data length, bytes. */
  public int length;
  /** Whether this frame ends the stream. */
  public boolean fin;
  /** Absolute offset of the data in {@link #source}. */
  public int dataOffset;
  /** The buffer {@link #dataOffset} refers to. */
  public ByteBuffer source;

  /** Bytes of the frame header (type, id, offset, length) for these values, with LEN set. */
  public static int headerLength(long streamId, long offset, int length) {
    return 1 + VarInt.size(streamId) + (offset == 0 ? 0 : VarInt.size(offset))
        + VarInt.size(length);
  }

  /**
   * Writes the frame header (with the LEN bit, OFF when {@code offset > 0}); the caller writes the
   * {@code length} data bytes right after it.
   */
  public static void encodeHeader(ByteBuffer out, long streamId, long offset, int length,
      boolean fin) {
    int type = FrameType.STREAM | FrameType.STREAM_LEN
        | (offset == 0 ? 0 : FrameType.STREAM_OFF) | (fin ? FrameType.STREAM_FIN : 0);
    out.put((byte) type);
    VarInt.write(out, streamId);
    if (offset != 0) {
      VarInt.write(out, offset);
    }
    VarInt.write(out, length);
  }

  /**
   * Reads the fields following the type byte {@code type} (0x08..0x0f); without LEN the data
   * runs to the buffer's limit. False if malformed.
   */
  public boolean decode(ByteBuffer in, int type) {
    source = in;
    fin = (type & FrameType.STREAM_FIN) != 0;
    streamId = VarInt.read(in);
    offset = (type & FrameType.STREAM_OFF) != 0 ? VarInt.read(in) : 0;
    long len = (type & FrameType.STREAM_LEN) != 0 ? VarInt.read(in) : in.remaining();
    if (streamId < 0 || offset < 0 || len < 0 || len > in.remaining()
        || offset + len > VarInt.MAX) {
      return false;
    }
    length = (int) len;
    dataOffset = in.position();
    ((Buffer) in).position(dataOffset + length);
    return true;
  }
}
