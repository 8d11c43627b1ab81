package dev.tern.conformance;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.util.concurrent.Semaphore;

/**
 * The metrics tests' service: {@code Echo} answers its request, {@code Download} answers a string
 * of as many bytes as its request names, {@code Hang} never answers (each call that reached its
 * handler releases one permit of {@link #hanging}, so a test knows the server has it), {@code
 * IdempotentEcho} is {@code Echo} marked idempotent, so that the call layer lets it go as 0-RTT
 * early data.
 */
public final class MetricsService {
  public static final MethodDescriptor<String, String> ECHO =
      Utf8.method("test.Metrics/Echo", MethodDescriptor.MethodType.UNARY);
  public static final MethodDescriptor<String, String> DOWNLOAD =
      Utf8.method("test.Metrics/Download", MethodDescriptor.MethodType.UNARY);
  public static final MethodDescriptor<String, String> HANG =
      Utf8.method("test.Metrics/Hang", MethodDescriptor.MethodType.UNARY);
  public static final MethodDescriptor<String, String> IDEMPOTENT_ECHO =
      Utf8.method("test.Metrics/IdempotentEcho", MethodDescriptor.MethodType.UNARY).toBuilder().setIdempotent(true)
          .build();

  /** A permit per call that reached {@code Hang}'s handler. */
  public final Semaphore hanging = new Semaphore(0);

  /** The service, whose {@code Hang} releases this object's permits. */
  public ServerServiceDefinition definition() {
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
        .addMethod(IDEMPOTENT_ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .build();
  }
}
