package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that writes only from its on-ready handler ({@code setOnReadyHandler}, grpc-java's way
 * to honour flow control) is started by the transport's first {@code onReady}, as on grpc-java's
 * transports; over the in-process transport here, over the others in the conformance suite.
 */
@Timeout(30)
class OnReadyAtStartTest {
  @Test
  void aServerThatWritesFromItsOnReadyHandlerStreams() throws Exception {
    InProcessAddress address = new InProcessAddress("on-ready-" + UUID.randomUUID());
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Echo")
        .addMethod(TestMethods.SERVER_STREAMING, ServerCalls.asyncServerStreamingCall((request, response) -> {
          ServerCallStreamObserver<String> out = (ServerCallStreamObserver<String>) response;
          int n = Integer.parseInt(request);
          int[] sent = {0};
          out.setOnReadyHandler(() -> {
            while (out.isReady() && sent[0] < n) {
              out.onNext("m" + sent[0]++);
            }
            if (sent[0] == n) {
              sent[0]++;
              out.onCompleted();
            }
          });
        }))
        .build();
    Server server = TernServerBuilder.create().addTransportProvider(new InProcessTransportProvider())
        .listen(InProcessTransportProvider.NAME, address).addService(service).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(new InProcessTransportProvider())
        .transports(InProcessTransportProvider.NAME).usePlaintext().build();
    try {
      Iterator<String> it = ClientCalls.blockingServerStreamingCall(channel, TestMethods.SERVER_STREAMING,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "5");
      List<String> got = new ArrayList<>();
      it.forEachRemaining(got::add);
      assertThat(got).containsExactly("m0", "m1", "m2", "m3", "m4");
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }
}
