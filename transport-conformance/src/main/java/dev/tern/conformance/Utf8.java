package dev.tern.conformance;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Strings as UTF-8 messages, for hand-written test services (no protoc). */
public final class Utf8 {
  /** Marshals a string as its UTF-8 bytes. */
  public static final MethodDescriptor.Marshaller<String> MARSHALLER = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream in) {
      try {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /**
   * A method of strings.
   *
   * @param fullName the method's full name, {@code service/method}
   * @param type the method's type
   * @return the method descriptor
   */
  public static MethodDescriptor<String, String> method(String fullName, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<String, String>newBuilder().setType(type).setFullMethodName(fullName)
        .setRequestMarshaller(MARSHALLER).setResponseMarshaller(MARSHALLER).build();
  }

  private Utf8() {}
}
