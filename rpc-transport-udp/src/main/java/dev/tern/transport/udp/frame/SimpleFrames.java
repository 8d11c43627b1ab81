package dev.tern.transport.udp.frame;

import java.nio.ByteBuffer;

/**
 * The frames without fields: PADDING (RFC 9000 §19.1), PING (§19.2) and HANDSHAKE_DONE (§19.20)
 * (docs/protocol.md §6).
 */
public final class SimpleFrames {
  private SimpleFrames() {}

  /** Writes {@code count} PADDING bytes. */
  public static void encodePadding(ByteBuffer out, int count) {
    for (int i = 0; i < count; i++) {
      out.put((byte) FrameType.PADDING);
    }
  }

  /** Writes a PING. */
  public static void encodePing(ByteBuffer out) {
    out.put((byte) FrameType.PING);
  }

  /** Writes a HANDSHAKE_DONE. */
  public static void encodeHandshakeDone(ByteBuffer out) {
    out.put((byte) FrameType.HANDSHAKE_DONE);
  }
}
