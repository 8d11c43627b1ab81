package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/** MAX_STREAM_DATA: a stream's flow-control limit (RFC 9000 §19.10) (docs/protocol.md §6). A reusable view: {@link #decode} fills it in place. */
public final class MaxStreamDataFrame {
  /** The stream. */
  public long streamId;
  /** The maximum stream data, bytes. */
  public long maximumStreamData;

  /** Writes the frame, type included. */
  public static void encode(ByteBuffer out, long streamId, long maximumStreamData) {
    out.put((byte) FrameType.MAX_STREAM_DATA);
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
