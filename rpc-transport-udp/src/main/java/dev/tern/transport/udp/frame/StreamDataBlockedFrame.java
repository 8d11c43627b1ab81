package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/** STREAM_DATA_BLOCKED: the sender is blocked by a stream's limit (RFC 9000 §19.13) (docs/protocol.md §6). A reusable view: {@link #decode} fills it in place. */
public final class StreamDataBlockedFrame {
  /** The stream. */
  public long streamId;
  /** The limit at which the sender is blocked. */
  public long maximumStreamData;

  /** Writes the frame, type included. */
  public static void encode(ByteBuffer out, long streamId, long maximumStreamData) {
    out.put((byte) FrameType.STREAM_DATA_BLOCKED);
    VarInt.write(out, streamId);
    VarInt.write(out, maximumStreamData);
  }

  /** The encoded length, type included. */
  public static int encodedLength(long streamId, long maximumStreamData) {
    return 1 + VarInt.size(streamId) + VarInt.size(maximumStreamData);
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    streamId = VarInt.read(in);
    maximumStreamData = VarInt.read(in);
    return streamId >= 0 && maximumStreamData >= 0;
  }
}
