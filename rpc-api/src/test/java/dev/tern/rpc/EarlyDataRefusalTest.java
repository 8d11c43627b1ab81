package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A call that arrived as 0-RTT early data, which an attacker may replay: the server refuses it for
 * a method that is neither idempotent nor safe, and tells handlers of the others how it came.
 */
@Timeout(30)
class EarlyDataRefusalTest {
  private static final MethodDescriptor<String, String> CHARGE = TestMethods.method("Charge", MethodDescriptor.MethodType.UNARY);
  private static final MethodDescriptor<String, String> LOOK_UP = TestMethods.method("LookUp", MethodDescriptor.MethodType.UNARY)
      .toBuilder().setSafe(true).build();
  private static final MethodDescriptor<String, String> PUT = TestMethods.method("Put", MethodDescriptor.MethodType.UNARY)
      .toBuilder().setIdempotent(true).build();

  /** In-process, but every request "arrives before the handshake completed". */
  private static final class AllEarly extends InProcessTransportProvider {
    @Override
    public String name() {
      return "all-early";
    }

    @Override
    public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
      ServerTransport inner = super.newServerTransport(bindAddress, options);
      return new ServerTransport() {
        @Override
        public void start(ServerTransportListener listener) throws IOException {
          inner.start(new ServerTransportListener() {
            @Override
            public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
              return listener.streamCreated(new EarlyStream(stream), headers);
            }

            @Override
            public void serverTerminated() {
              listener.serverTerminated();
            }
          });
        }

        @Override public SocketAddress listenAddress() { return inner.listenAddress(); }

        @Override public void shutdown() { inner.shutdown(); }

        @Override public void shutdownNow(Status status) { inner.shutdownNow(status); }
      };
    }
  }

  /** A server stream that reports its request as early data. */
  private static final class EarlyStream implements ServerStream {
    private final ServerStream inner;

    EarlyStream(ServerStream inner) {
      this.inner = inner;
    }

    @Override public boolean receivedAsEarlyData() { return true; }

    @Override public void writeHeaders(Metadata headers) { inner.writeHeaders(headers); }

    @Override public void writeMessage(ByteBuffer message) { inner.writeMessage(message); }

    @Override public void flush() { inner.flush(); }

    @Override public void request(int numMessages) { inner.request(numMessages); }

    @Override public void close(Status status, Metadata trailers) { inner.close(status, trailers); }

    @Override public void cancel(Status status) { inner.cancel(status); }

    @Override public boolean isReady() { return inner.isReady(); }

    @Override public void setMessageCompression(String encoding) { inner.setMessageCompression(encoding); }

    @Override public ConnectionInfo connectionInfo() { return inner.connectionInfo(); }
  }

  @Test
  void earlyCallsToNonIdempotentMethodsAreRefusedAndHandlersLearnHowTheirCallCame() throws Exception {
    AllEarly provider = new AllEarly();
    InProcessAddress address = new InProcessAddress("all-early-" + UUID.randomUUID());
    CompletableFuture<Boolean> handlerSaw = new CompletableFuture<>();
    CompletableFuture<Boolean> attributeSaid = new CompletableFuture<>();
    CompletableFuture<String> charged = new CompletableFuture<>();
    ServerInterceptor attributes = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata h, ServerCallHandler<Q, R> next) {
        attributeSaid.complete(call.getAttributes().get(TernServerCalls.EARLY_DATA_ATTR));
        return next.startCall(call, h);
      }
    };
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Echo")
        .addMethod(CHARGE, ServerCalls.asyncUnaryCall((req, obs) -> {
          charged.complete(req);
          obs.onNext(req);
          obs.onCompleted();
        }))
        .addMethod(LOOK_UP, ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext(req);
          obs.onCompleted();
        }))
        .addMethod(PUT, ServerCalls.asyncUnaryCall((req, obs) -> {
          handlerSaw.complete(TernServerCalls.receivedAsEarlyData());
          obs.onNext(req);
          obs.onCompleted();
        }))
        .build();
    Server server = TernServerBuilder.create().addTransportProvider(provider).listen(provider.name(), address)
        .addService(service).intercept(attributes).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(provider)
        .transports(provider.name()).usePlaintext().build();
    try {
      Status refused = GrpcCompatibilityTest.statusOf(() -> ClientCalls.blockingUnaryCall(channel, CHARGE,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), "10 EUR"));
      assertThat(refused.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(refused.getDescription()).contains("test.Echo/Charge", "early data", "not idempotent");
      assertThat(charged).as("the handler of a refused call never runs").isNotDone();

      assertThat(ClientCalls.blockingUnaryCall(channel, LOOK_UP, CallOptions.DEFAULT, "safe")).isEqualTo("safe");
      assertThat(ClientCalls.blockingUnaryCall(channel, PUT, CallOptions.DEFAULT, "idempotent")).isEqualTo("idempotent");
      assertThat(handlerSaw.get(5, TimeUnit.SECONDS)).isTrue();
      assertThat(attributeSaid.get(5, TimeUnit.SECONDS)).isTrue();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aSafeMethodMayGoAsEarlyDataByDefault() {
    assertThat(TernCallOptions.effectiveEarlyData(CallOptions.DEFAULT, LOOK_UP)).isTrue();
    assertThat(TernCallOptions.effectiveEarlyData(CallOptions.DEFAULT, PUT)).isTrue();
    assertThat(TernCallOptions.effectiveEarlyData(CallOptions.DEFAULT, CHARGE)).isFalse();
  }
}
