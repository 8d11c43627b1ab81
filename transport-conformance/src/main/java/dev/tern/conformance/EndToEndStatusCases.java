package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.io.InputStream;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * End-to-end status cases through {@link TernServerBuilder} and {@link TernChannelBuilder}: the
 * client's status is the one the server's call layer ended the call with (seen by a server stream
 * tracer), code and description, and rich error details arrive whole.
 */
public abstract class EndToEndStatusCases extends StatusCases {
  private static final MethodDescriptor<String, String> THROW =
      StringService.method("Throw", MethodDescriptor.MethodType.UNARY);
  private static final MethodDescriptor<String, String> STRICT =
      StringService.method("Strict", MethodDescriptor.MethodType.UNARY);
  private static final MethodDescriptor<String, String> RICH =
      StringService.method("Rich", MethodDescriptor.MethodType.UNARY);
  /** The server's view of {@link #STRICT}: a request marshaller that refuses every request. */
  private static final MethodDescriptor<String, String> STRICT_ON_SERVER = STRICT.toBuilder()
      .setRequestMarshaller(new MethodDescriptor.Marshaller<String>() {
        @Override
        public InputStream stream(String value) {
          return StringService.UTF8.stream(value);
        }

        @Override
        public String parse(InputStream stream) {
          throw new IllegalArgumentException("this server parses nothing");
        }
      }).build();

  /** The status the server's last call ended with, as its stream tracer saw it. */
  private final CompletableFuture<Status> serverStatus = new CompletableFuture<>();

  /** Throw (the handler throws), Strict (the request does not parse), Rich (rich error details). */
  private static ServerServiceDefinition services() {
    return ServerServiceDefinition.builder("conformance.Strings")
        .addMethod(THROW, (call, headers) -> {
          call.request(1);
          return new ServerCall.Listener<String>() {
            @Override
            public void onHalfClose() {
              throw new IllegalStateException("handler bug");
            }
          };
        })
        .addMethod(STRICT_ON_SERVER, (call, headers) -> {
          call.request(1);
          return new ServerCall.Listener<String>() {};
        })
        .addMethod(RICH, (ServerCall<String, String> call, Metadata headers) -> {
          call.request(1);
          return new ServerCall.Listener<String>() {
            @Override
            public void onHalfClose() {
              StatusRuntimeException e = StatusProto.toStatusRuntimeException(
                  RichErrors.status("conformance", AWKWARD_DESCRIPTION));
              Metadata trailers = e.getTrailers();
              trailers.put(StreamingCases.ASCII_KEY, "kept");
              call.close(e.getStatus(), trailers);
            }
          };
        })
        .build();
  }

  private ManagedChannel channelTo(Server server) {
    SocketAddress address = server.getListenSockets().get(0);
    return track(configureChannel(TernChannelBuilder.forAddress(address).addTransportProvider(provider)
        .transports(provider.name()).overrideAuthority(authorityFor(address))).build());
  }

  private Server serverWith(ServerServiceDefinition service) throws Exception {
    TernServerBuilder b = TernServerBuilder.create().addTransportProvider(provider)
        .listen(provider.name(), newServerAddress()).addService(service)
        .addStreamTracerFactory(new ServerStreamTracer.Factory() {
          @Override
          public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
            return new ServerStreamTracer() {
              @Override
              public void streamClosed(Status status) {
                serverStatus.complete(status);
              }
            };
          }
        });
    return track(configureServer(b).build().start());
  }

  private StatusRuntimeException failingCall(MethodDescriptor<String, String> method) throws Exception {
    Server server = serverWith(services());
    ManagedChannel channel = channelTo(server);
    StatusRuntimeException[] thrown = new StatusRuntimeException[1];
    assertThatThrownBy(() -> StringService.call(channel, method, CallOptions.DEFAULT, "x", timeout().toMillis()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> thrown[0] = e);
    return thrown[0];
  }

  /** Case: a handler that throws ends the client's call with the server's status, not a reset. */
  @Test
  protected void endToEndHandlerExceptionReachesTheClientAsTheServersStatus() throws Exception {
    StatusRuntimeException e = failingCall(THROW);
    Status atServer = await(serverStatus, "the server's end of the call");
    assertThat(atServer.getCode()).as("server status %s", atServer).isEqualTo(Status.Code.UNKNOWN);
    assertThat(e.getStatus().getCode()).as("client status %s", e.getStatus()).isEqualTo(atServer.getCode());
    assertThat(e.getStatus().getDescription()).isEqualTo(atServer.getDescription());
  }

  /** Case: a request the server cannot parse ends the client's call with the server's status. */
  @Test
  protected void endToEndUnparseableRequestReachesTheClientAsTheServersStatus() throws Exception {
    StatusRuntimeException e = failingCall(STRICT);
    Status atServer = await(serverStatus, "the server's end of the call");
    assertThat(atServer.getCode()).as("server status %s", atServer).isEqualTo(Status.Code.INTERNAL);
    assertThat(e.getStatus().getCode()).as("client status %s", e.getStatus()).isEqualTo(Status.Code.INTERNAL);
    assertThat(e.getStatus().getDescription()).isEqualTo(atServer.getDescription());
  }

  /** Case: rich error details (StatusProto) and other trailers reach the client whole. */
  @Test
  protected void endToEndRichErrorDetailsReachTheClientWhole() throws Exception {
    StatusRuntimeException e = failingCall(RICH);
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(e.getStatus().getDescription()).isEqualTo(AWKWARD_DESCRIPTION);
    assertThat(StatusProto.fromThrowable(e)).as("google.rpc.Status from the trailers")
        .isEqualTo(RichErrors.status("conformance", AWKWARD_DESCRIPTION));
    assertThat(e.getTrailers().get(StreamingCases.ASCII_KEY)).isEqualTo("kept");
  }
}
