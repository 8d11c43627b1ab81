package dev.tern.rpc;

import java.time.Duration;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code idleTimeout}: a channel with no call for that long closes its connection and goes IDLE,
 * as grpc-java's does; the next call connects again; an open call keeps the channel connected.
 */
@Timeout(30)
class IdleModeTest {
  private final InProcessAddress address = new InProcessAddress("idle-" + UUID.randomUUID());
  private final AtomicInteger connections = new AtomicInteger();
  private Server server;
  private ManagedChannel channel;

  private void start() throws Exception {
    server = TernServerBuilder.create().listen("inprocess", address).addService(TestMethods.service()).build().start();
    channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext()
        .idleTimeout(1, TimeUnit.SECONDS).connectionListener(info -> connections.incrementAndGet()).build();
  }

  private void awaitState(ConnectivityState wanted, long timeoutMillis) {
    await("channel state " + wanted).atMost(Duration.ofMillis(timeoutMillis)).pollInterval(Duration.ofMillis(20))
        .until(() -> channel.getState(false), s -> s == wanted);
  }

  @Test
  void aChannelWithNoCallGoesIdleAndTheNextCallConnectsAgain() throws Exception {
    start();
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "a")).isEqualTo("a");
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
    awaitState(ConnectivityState.IDLE, 10_000);
    assertThat(connections.get()).isEqualTo(1);

    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "b")).isEqualTo("b");
    // The channel serves the waiting call before it tells its connection listener (ConnectionManager),
    // so the call may finish first: wait for the listener, bounded.
    await("a new connection after idle").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
        .untilAsserted(() -> assertThat(connections.get()).isEqualTo(2));
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
  }

  @Test
  void anOpenCallKeepsTheChannelConnectedPastTheIdleTimeout() throws Exception {
    start();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(
        channel.newCall(TestMethods.BIDI, CallOptions.DEFAULT), new StreamObserver<String>() {
          @Override public void onNext(String value) {}

          @Override public void onError(Throwable t) { done.completeExceptionally(t); }

          @Override public void onCompleted() { done.complete(null); }
        });
    requests.onNext("open");
    awaitState(ConnectivityState.READY, 5_000);
    Thread.sleep(2_500); // more than twice the idle timeout, with the call open
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
    requests.onNext("still there");
    requests.onCompleted();
    done.get(5, TimeUnit.SECONDS);
    assertThat(connections.get()).isEqualTo(1);
    // Now with no call the channel idles.
    awaitState(ConnectivityState.IDLE, 10_000);
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
    }
  }
}
