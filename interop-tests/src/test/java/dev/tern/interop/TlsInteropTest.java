package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Tern and stock grpc-java interoperate over TLS (ALPN h2) with grpc's test certificates, both ways. */
@Timeout(180)
class TlsInteropTest {
  /** A spread of unary, streaming, metadata and cancellation cases; each stock run is a JVM start. */
  private static final List<InteropCase> STOCK_CLIENT_CASES = List.of(InteropCase.LARGE_UNARY,
      InteropCase.PING_PONG, InteropCase.CUSTOM_METADATA, InteropCase.CANCEL_AFTER_FIRST_RESPONSE);

  @Test
  void ternClientRunsEveryCaseAgainstAStockTlsServer() throws Exception {
    try (StockPeers.Server server = StockPeers.Server.start(true)) {
      ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", server.port).transports("tcp")
          .tls(GrpcTestCertificates.client()).build();
      try {
        InteropClientCases cases = new InteropClientCases(channel);
        for (InteropCase c : InteropCase.withoutProbes()) {
          cases.run(c);
        }
      } finally {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  @Test
  void stockTlsClientRunsCasesAgainstATernTlsServer() throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .tls(GrpcTestCertificates.server()).addService(TernTestService.definition(scheduler)).build().start();
    try {
      for (InteropCase c : STOCK_CLIENT_CASES) {
        StockPeers.ClientRun run = StockPeers.runClient(server.getPort(), c.caseName(), true);
        assertThat(run.exitCode).as("%s over TLS, stock client output:%n%s", c.caseName(), run.output).isZero();
      }
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      scheduler.shutdownNow();
    }
  }
}
