package dev.tern.rpc.micrometer;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** A string service for the tests, no protoc needed: echo, never answer, and a method it lacks. */
final class EchoService {
  static final String SERVICE = "tern.test.Echo";

  private static final MethodDescriptor.Marshaller<String> STRING = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /** Answers with the request. */
  static final MethodDescriptor<String, String> UNARY = method("Unary");
  /** Never answers: the call stays active until cancelled or its deadline passes. */
  static final MethodDescriptor<String, String> SLOW = method("Slow");
  /** Not in {@link #service()}: the server answers UNIMPLEMENTED. */
  static final MethodDescriptor<String, String> MISSING = method("Missing");

  private EchoService() {}

  private static MethodDescriptor<String, String> method(String name) {
    // Sampled to local tracing, as generated stubs' methods are: grpc's OpenTelemetry module then
    // records the method's name rather than "other".
    return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name)).setSampledToLocalTracing(true)
        .setRequestMarshaller(STRING).setResponseMarshaller(STRING).build();
  }

  /** {@link #UNARY} and {@link #SLOW}. */
  static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(UNARY, ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext(req);
          obs.onCompleted();
        }))
        .addMethod(SLOW, ServerCalls.asyncUnaryCall((req, obs) -> { }))
        .build();
  }
}
