package dev.tern.rpc;

import java.io.InputStream;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/** A message's bytes as the {@link InputStream} a {@link io.grpc.MethodDescriptor.Marshaller} parses. */
final class ByteBufferInputStream extends InputStream {
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
    if (len == 0) {
      return 0;
    }
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

  @Override
  public long skip(long n) {
    int k = (int) Math.max(0, Math.min(n, buf.remaining()));
    ((Buffer) buf).position(buf.position() + k); // Buffer's: ByteBuffer's override is Java 9
    return k;
  }
}
