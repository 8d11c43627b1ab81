package dev.tern.transport.udp.frame;

import java.nio.ByteBuffer;

/**
 * PATH_CHALLENGE: 8 bytes of path-validation data (RFC 9000 §19.17-19.18; docs/protocol.md §6).
 * A reusable view: {@link #decode} fills it in place.
 */
public final class PathChallengeFrame {
  /** The 64 bits of data. */
  public long data;

  /** Writes the frame, type included. */
  public static void encode(ByteBuffer out, long data) {
    out.put((byte) FrameType.PATH_CHALLENGE);
    out.putLong(data);
  }

  /** The encoded length, type included. */
  public static int encodedLength() {
    return 9;
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    if (in.remaining() < 8) {
      return false;
    }
    data = in.getLong();
    return true;
  }
}
