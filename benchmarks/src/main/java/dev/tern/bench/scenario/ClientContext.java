package dev.tern.bench.scenario;

import dev.tern.bench.stack.RpcStack;
import dev.tern.bench.stack.TlsMaterial;
import io.grpc.ManagedChannel;
import java.util.concurrent.TimeUnit;

/** What a scenario needs on the client side. */
record ClientContext(RpcStack stack, String host, int port, TlsMaterial tls, ClientConfig config,
    Recorder recorder, Coordinator coordinator) {

  ManagedChannel newChannel() {
    return stack.newChannel(host, port, tls);
  }

  static void close(ManagedChannel ch) {
    ch.shutdownNow();
    try {
      ch.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
