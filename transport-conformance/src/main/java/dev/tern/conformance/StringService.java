package dev.tern.conformance;

import dev.tern.rpc.TernServerCalls;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A hand-written string service for the end-to-end cases (no protoc): {@code Echo}, {@code Version}
 * (answers the agreed protocol version and transport), {@code Hang} (never answers; records how
 * the server-side context ended), {@code Repeat} (server streaming).
 */
final class StringService {
  static final MethodDescriptor.Marshaller<String> UTF8 = Utf8.MARSHALLER;

  static final MethodDescriptor<String, String> ECHO = method("Echo", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> VERSION = method("Version", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> HANG = method("Hang", MethodDescriptor.MethodType.UNARY);

  /** Completed when a {@code Hang} call reaches its server handler. */
  final CompletableFuture<Void> hangStarted = new CompletableFuture<>();

  /** How the last {@code Hang} call's server context ended. */
  final CompletableFuture<Throwable> hangContextCancelled = new CompletableFuture<>();

  static MethodDescriptor<String, String> method(String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<String, String>newBuilder().setType(type)
        .setFullMethodName("conformance.Strings/" + name)
        .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder("conformance.Strings")
        .addMethod(ECHO, unary(s -> s))
        .addMethod(VERSION, unary(s -> TernServerCalls.protocolVersion() + "/"
            + TernServerCalls.connectionInfo().transport()))
        .addMethod(HANG, (call, headers) -> {
          Context ctx = Context.current();
          ctx.addListener(c -> hangContextCancelled.complete(c.cancellationCause()), Runnable::run);
          hangStarted.complete(null);
          call.request(1);
          return new ServerCall.Listener<>() {};
        })
        .build();
  }

  private static ServerCallHandler<String, String> unary(Function<String, String> f) {
    return (call, headers) -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        private String request;

        @Override
        public void onMessage(String message) {
          request = message;
        }

        @Override
        public void onHalfClose() {
          call.sendHeaders(new Metadata());
          call.sendMessage(f.apply(request));
          call.close(Status.OK, new Metadata());
        }
      };
    };
  }

  /** A blocking unary call; a non-OK status comes back as a {@link io.grpc.StatusRuntimeException}. */
  static String call(Channel channel, MethodDescriptor<String, String> method, CallOptions options,
      String request, long timeoutMillis) throws InterruptedException {
    CompletableFuture<String> result = new CompletableFuture<>();
    ClientCall<String, String> call = channel.newCall(method, options);
    call.start(new ClientCall.Listener<>() {
      private String response;

      @Override
      public void onMessage(String message) {
        response = message;
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        if (status.isOk()) {
          result.complete(response);
        } else {
          result.completeExceptionally(status.asRuntimeException(trailers));
        }
      }
    }, new Metadata());
    call.request(2);
    call.sendMessage(request);
    call.halfClose();
    try {
      return result.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw (RuntimeException) e.getCause();
    } catch (TimeoutException e) {
      call.cancel("test timed out", null);
      throw new AssertionError("call to " + method.getFullMethodName() + " got no answer in " + timeoutMillis + " ms");
    }
  }
}
