package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * CONNECTION_CLOSE (transport error, type 0x1c) and APPLICATION_CLOSE (type 0x1d)
 * (RFC 9000 §19.19; docs/protocol.md §6). A reusable view: the reason is a slice of the decoded
 * buffer.
 */
public final class ConnectionCloseFrame {
  /** Longest reason phrase accepted and sent, bytes. */
  public static final int MAX_REASON_BYTES = 256;

  /** True for APPLICATION_CLOSE. */
  public boolean application;
  /** The error code: a {@link TransportError} code, or the application's. */
  public long errorCode;
  /** The frame type that caused a transport error (0 if none); absent for APPLICATION_CLOSE. */
  public long frameType;
  /** Absolute offset of the reason phrase in {@link #source}. */
  public int reasonOffset;
  /** Length of the reason phrase. */
  public int reasonLength;
  /** The buffer the offsets refer to. */
  public ByteBuffer source;

  /** Writes a CONNECTION_CLOSE for a transport error. */
  public static void encodeTransport(ByteBuffer out, TransportError error, long frameType,
      byte[] reason) {
    encodeTransport(out, error.code(), frameType, reason);
  }

  /**
   * Writes a CONNECTION_CLOSE with a raw transport error code: a CRYPTO_ERROR carries 0x0100
   * plus its TLS alert (RFC 9000 §20.1), which one {@link TransportError} constant stands for.
   */
  public static void encodeTransport(ByteBuffer out, long errorCode, long frameType,
      byte[] reason) {
    out.put((byte) FrameType.CONNECTION_CLOSE);
    VarInt.write(out, errorCode);
    VarInt.write(out, frameType);
    writeReason(out, reason);
  }

  /** Writes an APPLICATION_CLOSE. */
  public static void encodeApplication(ByteBuffer out, long errorCode, byte[] reason) {
    out.put((byte) FrameType.APPLICATION_CLOSE);
    VarInt.write(out, errorCode);
    writeReason(out, reason);
  }

  /** The encoded length of a CONNECTION_CLOSE, at most. */
  public static int maxEncodedLength(byte[] reason) {
    return 1 + 8 + 8 + 2 + Math.min(reason.length, MAX_REASON_BYTES);
  }

  private static void writeReason(ByteBuffer out, byte[] reason) {
    int n = Math.min(reason.length, MAX_REASON_BYTES);
    VarInt.write(out, n);
    out.put(reason, 0, n);
  }

  /** Reads the fields following the type byte {@code type}; false if malformed. */
  public boolean decode(ByteBuffer in, int type) {
    source = in;
    application = type == FrameType.APPLICATION_CLOSE;
    errorCode = VarInt.read(in);
    frameType = application ? 0 : VarInt.read(in);
    long n = VarInt.read(in);
    if (errorCode < 0 || frameType < 0 || n < 0 || n > in.remaining()) {
      return false;
    }
    reasonOffset = in.position();
    reasonLength = (int) n;
    ((Buffer) in).position(reasonOffset + reasonLength);
    return true;
  }

  /** The reason phrase as text (allocates: for reports, not for hot paths). */
  public String reason() {
    byte[] b = new byte[reasonLength];
    for (int i = 0; i < reasonLength; i++) {
      b[i] = source.get(reasonOffset + i);
    }
    return new String(b, StandardCharsets.UTF_8);
  }
}
