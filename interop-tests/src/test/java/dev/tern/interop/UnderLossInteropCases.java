package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.TernChannels;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every interop case between a Tern client and a Tern server over a datagram transport whose
 * server socket loses (and reorders) datagrams, from a fixed seed: the subclass starts the server
 * and the channel with the impairment.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class UnderLossInteropCases {
  /** The interop service's timer. */
  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private Server server;
  private ManagedChannel channel;

  /** The transport's name, as the channel reports it. */
  abstract String transport();

  /** Starts a server with {@code TernTestService} on an impaired socket. */
  abstract Server startServer() throws Exception;

  /** A channel to {@code server} over the transport. */
  abstract ManagedChannel channel(Server server);

  @BeforeAll
  void start() throws Exception {
    server = startServer();
    channel = channel(server);
  }

  @AfterAll
  void stop() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    scheduler.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  static List<InteropCase> cases() {
    return InteropCase.withoutProbes();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void passesUnderLoss(InteropCase testCase) throws Exception {
    new InteropClientCases(channel).run(testCase);
    assertThat(TernChannels.connectionInfo(channel).transport()).isEqualTo(transport());
  }

  /** The impairment really costs datagrams: the client's connection counts lost packets. */
  @Test
  void theLinkReallyLosesPackets() throws Exception {
    for (int i = 0; i < 5; i++) {
      new InteropClientCases(channel).run(InteropCase.LARGE_UNARY);
    }
    ConnectionInfo info = TernChannels.connectionInfo(channel);
    assertThat(info.packetsLost()).as("packets the client saw lost").isPositive();
  }
}
