package dev.tern.rpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** A tiny string service for call-layer tests: no protoc needed. */
final class TestMethods {
  static final MethodDescriptor.Marshaller<String> STRING = new MethodDescriptor.Marshaller<>() {
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

  static final MethodDescriptor<String, String> UNARY = method("Unary", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> SERVER_STREAMING =
      method("ServerStreaming", MethodDescriptor.MethodType.SERVER_STREAMING);
  static final MethodDescriptor<String, String> BIDI = method("Bidi", MethodDescriptor.MethodType.BIDI_STREAMING);
  static final MethodDescriptor<String, String> SLOW = method("Slow", MethodDescriptor.MethodType.UNARY);

  private TestMethods() {}

  static MethodDescriptor<String, String> method(String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<String, String>newBuilder().setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName("test.Echo", name))
        .setRequestMarshaller(STRING).setResponseMarshaller(STRING).build();
  }

  /** Echo (unary), repeat n times (server streaming), echo each (bidi), never answer (slow). */
  static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder("test.Echo")
        .addMethod(UNARY, ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext(req);
          obs.onCompleted();
        }))
        .addMethod(SERVER_STREAMING, ServerCalls.asyncServerStreamingCall((req, obs) -> {
          int n = Integer.parseInt(req);
          for (int i = 0; i < n; i++) {
            obs.onNext("m" + i);
          }
          obs.onCompleted();
        }))
        .addMethod(BIDI, ServerCalls.asyncBidiStreamingCall(obs -> new StreamObserver<String>() {
          @Override public void onNext(String value) { obs.onNext(value); }

          @Override public void onError(Throwable t) {}

          @Override public void onCompleted() { obs.onCompleted(); }
        }))
        .addMethod(SLOW, ServerCalls.asyncUnaryCall((req, obs) -> { }))
        .build();
  }
}
