package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/** STOP_SENDING: the receiver no longer wants a stream's data (RFC 9000 §19.5) (docs/protocol.md §6). A reusable view: {@link #decode} fills it in place. */
public final class StopSendingFrame {
  /** The stream. */
  public long streamId;
  /** The application's error code. */
  public long applicationErrorCode;

  /** Writes the frame, type included. */
  public static void encode(ByteBuffer out, long streamId, long applicationErrorCode) {
    out.put((byte) FrameType.STOP_SENDING);
    VarInt.write(out, streamId);
    VarInt.write(out, applicationErrorCode);
  }

  /** The encoded length, type included. */
  public static int encodedLength(long streamId, long applicationErrorCode) {
    return 1 + VarInt.size(streamId) + VarInt.size(applicationErrorCode);
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    streamId = VarInt.read(in);
    applicationErrorCode = VarInt.read(in);
    return streamId >= 0 && applicationErrorCode >= 0;
  }
}
