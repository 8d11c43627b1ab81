package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/**
 * RESET_STREAM: the sender abandons a stream (RFC 9000 §19.4; docs/protocol.md §6). A reusable
 * view: {@link #decode} fills it in place.
 */
public final class ResetStreamFrame {
  /** The stream. */
  public long streamId;
  /** The application's error code. */
  public long applicationErrorCode;
  /** The stream's final size, bytes. */
  public long finalSize;

  /** Writes the frame, type included. */
  public static void encode(ByteBuffer out, long streamId, long applicationErrorCode,
      long finalSize) {
    out.put((byte) FrameType.RESET_STREAM);
    VarInt.write(out, streamId);
    VarInt.write(out, applicationErrorCode);
    VarInt.write(out, finalSize);
  }

  /** The encoded length, type included. */
  public static int encodedLength(long streamId, long applicationErrorCode, long finalSize) {
    return 1 + VarInt.size(streamId) + VarInt.size(applicationErrorCode) + VarInt.size(finalSize);
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    streamId = VarInt.read(in);
    applicationErrorCode = VarInt.read(in);
    finalSize = VarInt.read(in);
    return streamId >= 0 && applicationErrorCode >= 0 && finalSize >= 0;
  }
}
