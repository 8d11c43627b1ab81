package dev.tern.interop;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import io.grpc.ManagedChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/** A Tern channel over TCP runs the interop cases against grpc-java's own interop server. */
@Timeout(120)
class TernClientToStockServerTest {
  private static StockPeers.Server server;
  private static ManagedChannel channel;

  @BeforeAll
  static void start() throws Exception {
    server = StockPeers.Server.start();
    channel = TernChannelBuilder.forAddress("127.0.0.1", server.port).transports("tcp").usePlaintext().build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.close();
    }
  }

  /** grpc-java's server cannot see a request's compression, so it is not probed. */
  static List<InteropCase> cases() {
    return InteropCase.withoutProbes();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void passes(InteropCase testCase) throws Exception {
    new InteropClientCases(channel).run(testCase);
  }

  @Test
  void talksOverTcp() throws Exception {
    new InteropClientCases(channel).run(InteropCase.EMPTY_UNARY);
    assertThat(TernChannels.connectionInfo(channel).transport()).isEqualTo("tcp");
  }
}
