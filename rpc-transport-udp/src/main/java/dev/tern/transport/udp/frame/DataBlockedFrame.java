package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/** DATA_BLOCKED: the sender is blocked by the connection limit (RFC 9000 §19.12) (docs/protocol.md §6). A reusable view: {@link #decode} fills it in place. */
public final class DataBlockedFrame {
  /** The limit at which the sender is blocked. */
  public long maximumData;

  /** Writes the frame, type included. */
  public static void encode(ByteBuffer out, long maximumData) {
    out.put((byte) FrameType.DATA_BLOCKED);
    VarInt.write(out, maximumData);
  }

  /** The encoded length, type included. */
  public static int encodedLength(long maximumData) {
    return 1 + VarInt.size(maximumData);
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    maximumData = VarInt.read(in);
    return maximumData >= 0;
  }
}
