package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TernChannels#networkChanged}: a connection whose transport cannot move to the new
 * network is left, as grpc-java's Android channel leaves its connections on a network change:
 * the call open on it finishes there, the next call connects anew; the memory forgets its marks.
 */
@Timeout(30)
class NetworkChangeTest {
  private final InProcessAddress address = new InProcessAddress("network-" + UUID.randomUUID());
  private final AtomicInteger connections = new AtomicInteger();
  private Server server;
  private ManagedChannel channel;

  @Test
  void aConnectionThatCannotMoveIsLeftAndTheNextCallConnectsAnew() throws Exception {
    server = TernServerBuilder.create().listen("inprocess", address)
        .addService(TestMethods.service()).build().start();
    TransportMemory memory = TransportMemory.builder().build();
    memory.markBroken(address.toString(), "quic");
    memory.markBroken("elsewhere:443", "udp");
    channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext()
        .transportMemory(memory).connectionListener(info -> connections.incrementAndGet()).build();

    BlockingQueue<String> echoes = new LinkedBlockingQueue<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<String> open = ClientCalls.asyncBidiStreamingCall(
        channel.newCall(TestMethods.BIDI, CallOptions.DEFAULT), new StreamObserver<String>() {
          @Override public void onNext(String value) { echoes.add(value); }

          @Override public void onError(Throwable t) { done.completeExceptionally(t); }

          @Override public void onCompleted() { done.complete(null); }
        });
    open.onNext("before");
    assertThat(echoes.poll(5, TimeUnit.SECONDS)).isEqualTo("before");
    assertThat(connections.get()).isEqualTo(1);

    TernChannels.networkChanged(channel);

    assertThat(memory.isBroken("elsewhere:443", "udp")).as("a mark of the old network").isFalse();
    // The call open on the connection left finishes there.
    open.onNext("after");
    assertThat(echoes.poll(5, TimeUnit.SECONDS)).isEqualTo("after");
    open.onCompleted();
    done.get(5, TimeUnit.SECONDS);
    // The next call connects anew.
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "next"))
        .isEqualTo("next");
    await("a new connection after the network change").atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(5)).untilAsserted(() -> assertThat(connections.get()).isEqualTo(2));
  }

  @Test
  void aChannelNotConnectedOnlyForgetsWhatItLearned() throws Exception {
    TransportMemory memory = TransportMemory.builder().build();
    memory.markBroken("elsewhere:443", "udp");
    channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext()
        .transportMemory(memory).build();
    TernChannels.networkChanged(channel);
    assertThat(memory.isBroken("elsewhere:443", "udp")).isFalse();
    assertThat(connections.get()).isZero();
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
