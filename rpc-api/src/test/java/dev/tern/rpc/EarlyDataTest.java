package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.net.SocketAddress;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls allowed early data reach a transport while its handshake still runs (so a 0-RTT transport
 * can put them in its first flight); the others wait for the handshake.
 */
@Timeout(30)
class EarlyDataTest {
  /** In-process, but the handshake completes only when the test says so. */
  private static final class SlowHandshake extends InProcessTransportProvider {
    final CompletableFuture<Void> finishHandshake = new CompletableFuture<>();

    @Override
    public String name() {
      return "slow-handshake";
    }

    @Override
    public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
      ClientTransport inner = super.newClientTransport(address, authority, options);
      return new ClientTransport() {
        @Override
        public void start(Listener listener) {
          inner.start(new Listener() {
            @Override public void transportReady(ConnectionInfo info) {
              finishHandshake.thenRun(() -> listener.transportReady(info));
            }

            @Override public void transportShutdown(Status status) { listener.transportShutdown(status); }

            @Override public void transportTerminated() { listener.transportTerminated(); }
          });
        }

        @Override
        public ClientStream newStream(RequestHeaders headers, ClientStreamListener l) {
          return inner.newStream(headers, l);
        }

        @Override public ConnectionInfo connectionInfo() { return inner.connectionInfo(); }

        @Override public void shutdown() { inner.shutdown(); }

        @Override public void shutdownNow(Status status) { inner.shutdownNow(status); }
      };
    }
  }

  @Test
  void idempotentCallsGoBeforeTheHandshakeEndsAndOthersWait() throws Exception {
    SlowHandshake provider = new SlowHandshake();
    InProcessAddress address = new InProcessAddress("early-" + UUID.randomUUID());
    Server server = TernServerBuilder.create().addTransportProvider(provider).listen(provider.name(), address)
        .addService(TestMethods.service()).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(provider)
        .transports(provider.name()).usePlaintext().build();
    try {
      var idempotent = TestMethods.UNARY.toBuilder().setIdempotent(true).build();
      assertThat(ClientCalls.blockingUnaryCall(channel, idempotent,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), "early")).isEqualTo("early");
      assertThat(provider.finishHandshake).as("handshake still running").isNotDone();

      CompletableFuture<String> late = CompletableFuture.supplyAsync(() ->
          ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "late"));
      CompletableFuture<String> forced = CompletableFuture.supplyAsync(() -> ClientCalls.blockingUnaryCall(channel,
          TestMethods.UNARY, TernCallOptions.withEarlyData(CallOptions.DEFAULT, true), "forced"));
      assertThat(forced.get(5, TimeUnit.SECONDS)).isEqualTo("forced");
      assertThat(late).as("a non-idempotent call before the handshake is done").isNotDone();
      provider.finishHandshake.complete(null);
      assertThat(late.get(5, TimeUnit.SECONDS)).isEqualTo("late");
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }
}
