package dev.tern.bench.service;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Marshals messages as raw bytes, so the benchmarks need no generated code. */
public final class ByteArrayMarshaller implements MethodDescriptor.Marshaller<byte[]> {
  /** The one instance; it holds no state. */
  public static final ByteArrayMarshaller INSTANCE = new ByteArrayMarshaller();

  private ByteArrayMarshaller() {}

  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    try {
      return stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("reading a benchmark message", e);
    }
  }
}
