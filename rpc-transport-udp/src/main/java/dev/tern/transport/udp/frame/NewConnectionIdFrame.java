package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.VarInt;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * NEW_CONNECTION_ID (RFC 9000 §19.15; docs/protocol.md §6). A reusable view: the connection ID
 * and reset token are offsets into the decoded buffer, valid while it is.
 */
public final class NewConnectionIdFrame {
  /** Stateless reset token length. */
  public static final int RESET_TOKEN_BYTES = 16;

  /** Sequence number of this ID. */
  public long sequenceNumber;
  /** IDs with lower sequence numbers are to be retired. */
  public long retirePriorTo;
  /** Absolute offset of the connection ID in {@link #source}. */
  public int cidOffset;
  /** Length of the connection ID. */
  public int cidLength;
  /** Absolute offset of the 16-byte stateless reset token in {@link #source}. */
  public int resetTokenOffset;
  /** The buffer the offsets refer to. */
  public ByteBuffer source;

  /** Writes the frame, type included; {@code resetToken} must hold 16 bytes. */
  public static void encode(ByteBuffer out, long sequenceNumber, long retirePriorTo,
      ConnectionId cid, byte[] resetToken) {
    if (resetToken.length != RESET_TOKEN_BYTES) {
      throw new IllegalArgumentException("resetToken must be 16 bytes: " + resetToken.length);
    }
    out.put((byte) FrameType.NEW_CONNECTION_ID);
    VarInt.write(out, sequenceNumber);
    VarInt.write(out, retirePriorTo);
    out.put((byte) cid.length());
    cid.write(out);
    out.put(resetToken);
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    source = in;
    sequenceNumber = VarInt.read(in);
    retirePriorTo = VarInt.read(in);
    if (sequenceNumber < 0 || retirePriorTo < 0 || retirePriorTo > sequenceNumber
        || !in.hasRemaining()) {
      return false;
    }
    cidLength = in.get() & 0xff;
    // RFC 9000 §19.15: a length outside 1..20 is a FRAME_ENCODING_ERROR.
    if (cidLength < 1 || cidLength > ConnectionId.MAX_LENGTH
        || in.remaining() < cidLength + RESET_TOKEN_BYTES) {
      return false;
    }
    cidOffset = in.position();
    resetTokenOffset = cidOffset + cidLength;
    ((Buffer) in).position(resetTokenOffset + RESET_TOKEN_BYTES);
    return true;
  }
}
