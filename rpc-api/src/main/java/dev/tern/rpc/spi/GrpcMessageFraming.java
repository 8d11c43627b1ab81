package dev.tern.rpc.spi;

import io.grpc.Codec;
import io.grpc.Compressor;
import io.grpc.Decompressor;
import io.grpc.DecompressorRegistry;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * gRPC's length-prefixed message framing, for transports that frame messages themselves (QUIC,
 * Tern's UDP protocol): a 1-byte compressed flag, a 4-byte big-endian length, then the message
 * (gRPC over HTTP/2, "Length-Prefixed-Message"). Compression uses grpc-java's public codecs
 * ({@link Codec.Gzip} for {@code "gzip"}).
 *
 * <p>Encode with {@link #encode}; decode a byte stream with a {@link GrpcMessageDeframer}, or one
 * whole framed message with {@link #decode}.
 */
public final class GrpcMessageFraming {
  /** Length of the prefix: flag byte plus 4-byte length. */
  public static final int HEADER_LENGTH = 5;
  /** The flag value of an uncompressed message. */
  public static final byte FLAG_UNCOMPRESSED = 0;
  /** The flag value of a compressed message. */
  public static final byte FLAG_COMPRESSED = 1;
  /** The encoding name that means no compression. */
  public static final String IDENTITY = "identity";

  private GrpcMessageFraming() {}

  /**
   * Frames {@code message} (its remaining bytes; the buffer is consumed), compressing it with
   * {@code compressor} unless that is null or {@link Codec.Identity}.
   *
   * @param message the serialised message, from its position to its limit; left at its limit
   * @param compressor the message encoding's compressor, or null to send it uncompressed
   * @return a new buffer, positioned at 0, holding the prefix and the (compressed) payload
   * @throws StatusRuntimeException INTERNAL if the compressor fails
   */
  public static ByteBuffer encode(ByteBuffer message, Compressor compressor) {
    if (compressor == null || compressor == Codec.Identity.NONE
        || IDENTITY.equals(compressor.getMessageEncoding())) {
      ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + message.remaining());
      writeHeader(out, false, message.remaining());
      ((Buffer) out.put(message)).flip(); // Buffer's flip: ByteBuffer's override is Java 9
      return out;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(HEADER_LENGTH + message.remaining() / 2);
    bytes.write(new byte[HEADER_LENGTH], 0, HEADER_LENGTH);
    try (OutputStream z = compressor.compress(bytes)) {
      if (message.hasArray()) {
        z.write(message.array(), message.arrayOffset() + message.position(), message.remaining());
        ((Buffer) message).position(message.limit());
      } else {
        byte[] copy = new byte[message.remaining()];
        message.get(copy);
        z.write(copy);
      }
    } catch (IOException e) {
      throw Status.INTERNAL.withDescription("compressing a message with "
          + compressor.getMessageEncoding() + " failed").withCause(e).asRuntimeException();
    }
    ByteBuffer out = ByteBuffer.wrap(bytes.toByteArray());
    writeHeader(out.duplicate(), true, out.capacity() - HEADER_LENGTH);
    return out;
  }

  /**
   * Writes the 5-byte prefix at {@code out}'s position (advancing it), for a transport that
   * writes the payload into the same buffer itself.
   *
   * @param out the buffer to write into; needs at least {@link #HEADER_LENGTH} bytes remaining
   * @param compressed whether the payload that follows is compressed
   * @param length the payload's length in bytes, as it goes on the wire (after compression)
   * @throws IllegalArgumentException if {@code length} is negative
   * @throws java.nio.BufferOverflowException if {@code out} has fewer than 5 bytes remaining
   */
  public static void writeHeader(ByteBuffer out, boolean compressed, int length) {
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0, was " + length);
    }
    out.put(compressed ? FLAG_COMPRESSED : FLAG_UNCOMPRESSED).putInt(length);
  }

  /**
   * Decodes one whole framed message (prefix included), decompressing it with the decompressor
   * {@code registry} has for {@code encoding}.
   *
   * @param framed one frame, from its position (the flag byte) to its limit (the payload's end);
   *     its position moves past the prefix
   * @param encoding the call's message encoding ({@code grpc-encoding}), or null for identity
   * @param registry where to find the decompressor for {@code encoding}
   * @param maxMessageSize the longest message accepted, in bytes, both as sent and decompressed
   * @return the message: a slice of {@code framed} if it was not compressed, else a new buffer
   * @throws StatusRuntimeException RESOURCE_EXHAUSTED when the message (before or after
   *     decompression) is larger than {@code maxMessageSize}; INTERNAL when the frame is malformed
   *     or the flag says compressed but the encoding is unknown or identity
   */
  public static ByteBuffer decode(ByteBuffer framed, String encoding, DecompressorRegistry registry,
      int maxMessageSize) {
    if (framed.remaining() < HEADER_LENGTH) {
      throw malformed("frame of " + framed.remaining() + " bytes is shorter than the 5-byte prefix");
    }
    byte flag = framed.get();
    int length = framed.getInt();
    checkFlag(flag);
    checkSize(length, maxMessageSize);
    if (framed.remaining() != length) {
      throw malformed("prefix says " + length + " bytes but the frame holds " + framed.remaining());
    }
    if (flag == FLAG_UNCOMPRESSED) {
      return framed.slice();
    }
    return decompress(framed.slice(), decompressorFor(encoding, registry), maxMessageSize);
  }

  /** The decompressor for a compressed message in {@code encoding}, or an INTERNAL status. */
  static Decompressor decompressorFor(String encoding, DecompressorRegistry registry) {
    Decompressor d = encoding == null || IDENTITY.equals(encoding) ? null
        : registry.lookupDecompressor(encoding);
    if (d == null) {
      throw Status.INTERNAL.withDescription("compressed message but no decompressor for encoding '"
          + encoding + "'").asRuntimeException();
    }
    return d;
  }

  static void checkFlag(byte flag) {
    if (flag != FLAG_UNCOMPRESSED && flag != FLAG_COMPRESSED) {
      throw malformed("compressed-flag byte must be 0 or 1, was " + (flag & 0xff));
    }
  }

  static void checkSize(long length, int maxMessageSize) {
    if (length < 0 || length > maxMessageSize) {
      // grpc-java's wording (MessageDeframer): the limit, then the size.
      throw Status.RESOURCE_EXHAUSTED.withDescription("gRPC message exceeds maximum size " + maxMessageSize
          + ": " + (length & 0xffffffffL)).asRuntimeException();
    }
  }

  static ByteBuffer decompress(ByteBuffer payload, Decompressor d, int maxMessageSize) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(maxMessageSize, payload.remaining() * 4));
    byte[] chunk = new byte[8192];
    try (InputStream in = d.decompress(new ByteBufferInputStream(payload))) {
      int n;
      long total = 0;
      while ((n = in.read(chunk)) > 0) {
        total += n;
        checkSize(total, maxMessageSize);
        out.write(chunk, 0, n);
      }
    } catch (IOException e) {
      throw Status.INTERNAL.withDescription("decompressing a " + d.getMessageEncoding()
          + " message failed: " + e.getMessage()).withCause(e).asRuntimeException();
    }
    return ByteBuffer.wrap(out.toByteArray());
  }

  private static StatusRuntimeException malformed(String what) {
    return Status.INTERNAL.withDescription("malformed gRPC message frame: " + what).asRuntimeException();
  }

  /** Reads a ByteBuffer's remaining bytes as a stream. */
  static final class ByteBufferInputStream extends InputStream {
    private final ByteBuffer buf;

    ByteBufferInputStream(ByteBuffer buf) {
      this.buf = buf;
    }

    @Override
    public int read() {
      return buf.hasRemaining() ? buf.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (!buf.hasRemaining()) {
        return -1;
      }
      int n = Math.min(len, buf.remaining());
      buf.get(b, off, n);
      return n;
    }

    @Override
    public int available() {
      return buf.remaining();
    }
  }
}
