package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernServerBuilder;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** grpc-java's own interop client runs every case against a Tern server over TCP. */
@Timeout(120)
class StockClientToTernServerTest {
  private static ScheduledExecutorService scheduler;
  private static Server server;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(TernTestService.definition(scheduler)).build().start();
    port = server.getPort();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  /** Over TCP a Tern server shows the request encoding, so the compression probes run too. */
  static List<InteropCase> cases() {
    return InteropCase.withProbes();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void passes(InteropCase testCase) throws Exception {
    StockPeers.ClientRun run = StockPeers.runClient(port, testCase.caseName());
    assertThat(run.exitCode).as("stock client output:%n%s", run.output).isZero();
    assertThat(run.output).contains("Test completed.");
  }
}
