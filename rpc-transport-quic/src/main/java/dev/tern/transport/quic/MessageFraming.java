package dev.tern.transport.quic;

import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * gRPC's length-prefixed messages (gRPC over HTTP/2 protocol, "Length-Prefixed-Message"): one
 * byte compressed-flag, a four-byte big-endian length, the message. Carried in HTTP/3 DATA frames.
 */
final class MessageFraming {
  static final int HEADER_BYTES = 5;

  private MessageFraming() {}

  /**
   * Frames {@code message} (read from its position to its limit), compressing it with {@code
   * encoding} when that is {@code gzip}. The returned buffer belongs to the caller.
   */
  static ByteBuf frame(ByteBuffer message, String encoding, ByteBufAllocator alloc) {
    if ("gzip".equals(encoding)) {
      byte[] compressed = gzip(message);
      ByteBuf out = alloc.buffer(HEADER_BYTES + compressed.length);
      return out.writeByte(1).writeInt(compressed.length).writeBytes(compressed);
    }
    ByteBuf out = alloc.buffer(HEADER_BYTES + message.remaining());
    return out.writeByte(0).writeInt(message.remaining()).writeBytes(message);
  }

  private static byte[] gzip(ByteBuffer message) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(message.remaining() / 2 + 32);
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      if (message.hasArray()) {
        gz.write(message.array(), message.arrayOffset() + message.position(), message.remaining());
      } else {
        byte[] copy = new byte[message.remaining()];
        message.duplicate().get(copy);
        gz.write(copy);
      }
    } catch (IOException e) {
      throw new IllegalStateException("gzip into memory failed", e);
    }
    return bytes.toByteArray();
  }

  /** Inflates a gzip message, refusing more than {@code maxBytes} of output. */
  static ByteBuffer gunzip(byte[] compressed, int maxBytes) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(maxBytes, compressed.length * 4 + 64));
      byte[] chunk = new byte[8192];
      int total = 0;
      for (int n; (n = in.read(chunk)) > 0; ) {
        total += n;
        if (total > maxBytes) {
          throw Status.RESOURCE_EXHAUSTED.withDescription(
              "decompressed message larger than " + maxBytes + " bytes").asRuntimeException();
        }
        out.write(chunk, 0, n);
      }
      return ByteBuffer.wrap(out.toByteArray());
    } catch (IOException e) {
      throw Status.INTERNAL.withDescription("cannot gunzip message: " + e.getMessage()).asRuntimeException();
    }
  }
}
