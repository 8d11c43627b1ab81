package dev.tern.transport.bridge;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * Passes messages through grpc-java untouched: the call layer has already serialised them.
 *
 * <p>Outbound, the buffer is drained straight into grpc's framer ({@link Drainable}, one copy into
 * the OkHttp (okio) buffer). Inbound, grpc's buffers must be given back, so each message is
 * copied once into a heap buffer that then belongs to the listener.
 */
public final class ByteBufferMarshaller implements MethodDescriptor.Marshaller<ByteBuffer> {
  public static final ByteBufferMarshaller INSTANCE = new ByteBufferMarshaller();

  private ByteBufferMarshaller() {}

  /**
   * A stream over the whole message, which leaves {@code value} as it was: grpc-java calls this
   * once per attempt of a call with the same buffer (its retries, transparent or by policy, replay
   * the message), so each stream reads a view of its own. Draining {@code value} itself left a
   * replayed attempt with nothing, and the server got an empty request.
   */
  @Override
  public InputStream stream(ByteBuffer value) {
    return new BufferInputStream(value.duplicate());
  }

  @Override
  public ByteBuffer parse(InputStream stream) {
    try {
      if (stream instanceof KnownLength) {
        // KnownLength: available() is the exact size of the rest of the message.
        int size = stream.available();
        byte[] bytes = new byte[size];
        int read = readFully(stream, bytes, size);
        if (read != size) {
          throw new IOException("message ended after " + read + " of " + size + " bytes");
        }
        return ByteBuffer.wrap(bytes);
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] chunk = new byte[BufferInputStream.CHUNK_BYTES];
      for (int n; (n = stream.read(chunk, 0, chunk.length)) != -1; ) {
        out.write(chunk, 0, n);
      }
      return ByteBuffer.wrap(out.toByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read an inbound message", e);
    }
  }

  /** Reads up to {@code size} bytes (InputStream.readNBytes is Java 9, not on Android 8). */
  private static int readFully(InputStream stream, byte[] bytes, int size) throws IOException {
    int read = 0;
    while (read < size) {
      int n = stream.read(bytes, read, size - read);
      if (n < 0) {
        break;
      }
      read += n;
    }
    return read;
  }

  /** An InputStream over a ByteBuffer that grpc can drain in one write. */
  static final class BufferInputStream extends InputStream implements Drainable, KnownLength {
    private static final int CHUNK_BYTES = 8192;
    private final ByteBuffer buffer;

    BufferInputStream(ByteBuffer buffer) {
      this.buffer = buffer;
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      int length = buffer.remaining();
      if (buffer.hasArray()) {
        target.write(buffer.array(), buffer.arrayOffset() + buffer.position(), length);
        ((Buffer) buffer).position(buffer.limit()); // Buffer's: ByteBuffer's override is Java 9
      } else {
        byte[] chunk = new byte[Math.min(CHUNK_BYTES, length)];
        while (buffer.hasRemaining()) {
          int n = Math.min(chunk.length, buffer.remaining());
          buffer.get(chunk, 0, n);
          target.write(chunk, 0, n);
        }
      }
      return length;
    }

    @Override
    public int available() {
      return buffer.remaining();
    }

    @Override
    public int read() {
      return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (!buffer.hasRemaining()) {
        return -1;
      }
      int n = Math.min(len, buffer.remaining());
      buffer.get(b, off, n);
      return n;
    }
  }
}
