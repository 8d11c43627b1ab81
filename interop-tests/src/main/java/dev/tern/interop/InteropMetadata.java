package dev.tern.interop;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * The metadata rules of the interop cases: {@code x-grpc-test-echo-initial} comes back in the
 * response headers and {@code x-grpc-test-echo-trailing-bin} in the trailers
 * ({@code custom_metadata}); the request's {@code grpc-encoding} is made visible to the service for
 * the {@code expect_compressed} checks.
 */
public final class InteropMetadata implements ServerInterceptor {
  /** Echoed in the response headers. */
  public static final Metadata.Key<String> ECHO_INITIAL =
      Metadata.Key.of("x-grpc-test-echo-initial", Metadata.ASCII_STRING_MARSHALLER);
  /** Echoed in the trailers. */
  public static final Metadata.Key<byte[]> ECHO_TRAILING =
      Metadata.Key.of("x-grpc-test-echo-trailing-bin", Metadata.BINARY_BYTE_MARSHALLER);
  /** The request's message encoding as the client stated it. */
  public static final Metadata.Key<String> ENCODING =
      Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);
  /** The encodings the client accepts; present on every grpc-java call. */
  public static final Metadata.Key<String> ACCEPT_ENCODING =
      Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER);
  /** The current call's request encoding: {@code identity} when the header is absent, null when unknown. */
  static final Context.Key<String> REQUEST_ENCODING = Context.key("interop-request-encoding");

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call,
      Metadata requestHeaders, ServerCallHandler<ReqT, RespT> next) {
    String echoInitial = requestHeaders.get(ECHO_INITIAL);
    byte[] echoTrailing = requestHeaders.get(ECHO_TRAILING);
    ServerCall<ReqT, RespT> echoing = new SimpleForwardingServerCall<ReqT, RespT>(call) {
      @Override
      public void sendHeaders(Metadata headers) {
        if (echoInitial != null) {
          headers.put(ECHO_INITIAL, echoInitial);
        }
        super.sendHeaders(headers);
      }

      @Override
      public void close(Status status, Metadata trailers) {
        if (echoTrailing != null) {
          trailers.put(ECHO_TRAILING, echoTrailing);
        }
        super.close(status, trailers);
      }
    };
    String encoding = requestHeaders.get(ENCODING);
    if (encoding == null && requestHeaders.containsKey(ACCEPT_ENCODING)) {
      encoding = "identity"; // the server shows gRPC's encoding headers, and this call set none
    }
    Context context = Context.current().withValue(REQUEST_ENCODING, encoding);
    return Contexts.interceptCall(context, echoing, requestHeaders, next);
  }
}
