package dev.tern.transport.tcp;

import dev.tern.conformance.Utf8;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.util.concurrent.Semaphore;

/**
 * The metrics tests' service: {@code Echo} answers its request, {@code Download} answers a string
 * of as many bytes as its request names, {@code Hang} never answers (each call that reached its
 * handler releases one permit of {@link #hanging}, so a test knows the server has it).
 */
final class MetricsService {
  static final MethodDescriptor<String, String> ECHO = Utf8.method("test.Metrics/Echo", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> DOWNLOAD =
      Utf8.method("test.Metrics/Download", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> HANG = Utf8.method("test.Metrics/Hang", MethodDescriptor.MethodType.UNARY);

  /** A permit per call that reached {@code Hang}'s handler. */
  final Semaphore hanging = new Semaphore(0);

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder("test.Metrics")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .addMethod(DOWNLOAD, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext("x".repeat(Integer.parseInt(request)));
          response.onCompleted();
        }))
        .addMethod(HANG, ServerCalls.asyncUnaryCall((request, response) -> hanging.release()))
        .build();
  }
}
