package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Resolving the target (a DNS lookup that may block) runs on the offload executor: neither the
 * thread that starts a call nor the timer that fires its deadline ever waits for it.
 */
@Timeout(30)
class ResolutionThreadTest {
  @org.junit.jupiter.api.RepeatedTest(10) // the race between shutdownNow() and the lookup
  void aBlockedLookupBlocksNeitherTheCallerNorTheDeadlineTimer() throws Exception {
    CountDownLatch dnsAnswers = new CountDownLatch(1);
    CompletableFuture<Thread> resolvedOn = new CompletableFuture<>();
    ExecutorService offload = Executors.newSingleThreadExecutor();
    ManagedChannel channel = TernChannelBuilder.forResolver(() -> {
      resolvedOn.complete(Thread.currentThread());
      try {
        dnsAnswers.await(); // a name server that does not answer
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return (SocketAddress) new InProcessAddress("nowhere");
    }, "slow.example:443").transports("inprocess").usePlaintext().offloadExecutor(offload).build();
    try {
      CompletableFuture<Status> closed = new CompletableFuture<>();
      CompletableFuture<Thread> caller = CompletableFuture.supplyAsync(() -> {
        ClientCall<String, String> call = channel.newCall(TestMethods.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS));
        call.start(new ClientCall.Listener<>() {
          @Override public void onClose(Status status, Metadata trailers) { closed.complete(status); }
        }, new Metadata());
        call.sendMessage("x");
        call.halfClose();
        return Thread.currentThread();
      });
      Thread callerThread = caller.get(5, TimeUnit.SECONDS); // start() returned during the lookup
      assertThat(resolvedOn.get(5, TimeUnit.SECONDS)).isNotSameAs(callerThread);
      Status status = closed.get(5, TimeUnit.SECONDS); // the timer fired during the lookup
      assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(status.getDescription()).contains("waiting_for_connection");
      assertThat(dnsAnswers.getCount()).as("the lookup is still blocked").isEqualTo(1);
    } finally {
      dnsAnswers.countDown();
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      offload.shutdownNow();
    }
  }
}
