package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import dev.tern.transport.udp.util.Buffers;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * NEW_TOKEN: an address-validation token for the client's future connections (RFC 9000 §19.7;
 * docs/protocol.md §6, §9.8). Only a server sends it. A reusable view: the token is a slice of
 * the decoded buffer.
 */
public final class NewTokenFrame {
  /** Token length, bytes (at least 1). */
  public int length;
  /** Absolute offset of the token in {@link #source}. */
  public int tokenOffset;
  /** The buffer {@link #tokenOffset} refers to. */
  public ByteBuffer source;

  /** Writes the frame. */
  public static void encode(ByteBuffer out, byte[] token) {
    out.put((byte) FrameType.NEW_TOKEN);
    VarInt.write(out, token.length);
    out.put(token);
  }

  /** Bytes the frame takes. */
  public static int encodedLength(byte[] token) {
    return 1 + VarInt.size(token.length) + token.length;
  }

  /** A copy of the token. */
  public byte[] token() {
    byte[] t = new byte[length];
    Buffers.get(source, tokenOffset, t);
    return t;
  }

  /**
   * Reads the fields following the type byte; false if malformed (RFC 9000 §19.7: an empty token
   * is a FRAME_ENCODING_ERROR).
   */
  public boolean decode(ByteBuffer in) {
    source = in;
    long len = VarInt.read(in);
    if (len <= 0 || len > in.remaining()) {
      return false;
    }
    length = (int) len;
    tokenOffset = in.position();
    ((Buffer) in).position(tokenOffset + length);
    return true;
  }
}
