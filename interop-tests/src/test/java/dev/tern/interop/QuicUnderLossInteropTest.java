package dev.tern.interop;

import dev.tern.conformance.TestCertificates;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.quic.QuicTransportOptions;
import dev.tern.transport.quic.QuicTransportProvider;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Tern client and a Tern server run every interop case over QUIC while the server's UDP socket
 * drops 4% of the datagrams in each direction and reorders 1% (a fixed seed), so recovery by
 * quiche (RFC 9002) is exercised under every call shape gRPC defines.
 */
@Timeout(60)
class QuicUnderLossInteropTest {
  /** Loss and reordering applied to every datagram the server receives and sends. */
  static final DatagramImpairment IMPAIRMENT = DatagramImpairment.of(0.04, 0, 0.01, 20261129L);

  private static final TestCertificates CERTS = TestCertificates.generate();
  private static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor();
  private static Server server;
  private static ManagedChannel channel;

  @BeforeAll
  static void start() throws Exception {
    QuicTransportProvider lossyServer = new QuicTransportProvider(
        TransportOptions.defaults().with(QuicTransportOptions.IMPAIRMENT, IMPAIRMENT));
    server = TernServerBuilder.create().addTransportProvider(lossyServer)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .addService(TernTestService.definition(SCHEDULER)).tls(CERTS.server()).build().start();
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    channel = TernChannelBuilder.forAddress("localhost", port).transports(QuicTransportProvider.NAME)
        .tls(CERTS.client()).build();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    SCHEDULER.shutdownNow();
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
    assertThat(TernChannels.connectionInfo(channel).transport()).isEqualTo(QuicTransportProvider.NAME);
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
