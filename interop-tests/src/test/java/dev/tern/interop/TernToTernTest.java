package dev.tern.interop;

import dev.tern.conformance.TestCertificates;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.spi.TransportProvider;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Tern client and a Tern server run every interop case over every transport on the class path
 * (a new transport joins by being a test dependency of this module).
 */
@Timeout(120)
class TernToTernTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  private static final byte[] UDP_SERVER_KEY = UdpTransportOptions.newServerKey();
  private static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor();
  private static final Map<String, Peers> PEERS = new ConcurrentHashMap<>();

  /** A server and a channel to it over one transport. */
  private static final class Peers {
    final Server server;
    final ManagedChannel channel;

    Peers(Server server, ManagedChannel channel) {
      this.server = server;
      this.channel = channel;
    }
  }

  static List<Arguments> cases() {
    Map<String, TransportProvider> transports = new TreeMap<>();
    for (TransportProvider provider : ServiceLoader.load(TransportProvider.class)) {
      // okhttp's server runs only on tern-bom-mobile's grpc-java line, not on this module's; its
      // client is checked against the tcp and stock servers by OkHttpInteropTest.
      if (provider.isAvailable() && !provider.name().equals("okhttp")) {
        transports.put(provider.name(), provider);
      }
    }
    List<Arguments> cases = new ArrayList<>();
    for (String transport : transports.keySet()) {
      for (InteropCase c : InteropCase.withoutProbes()) {
        cases.add(Arguments.of(transport, c));
      }
    }
    return cases;
  }

  private static Peers peers(String transport) {
    return PEERS.computeIfAbsent(transport, TernToTernTest::start);
  }

  private static Peers start(String transport) {
    try {
      boolean inProcess = transport.equals("inprocess");
      // Tern's UDP protocol authenticates the server by a static key the client has pinned, not
      // by a certificate.
      boolean udp = transport.equals("udp");
      SocketAddress address = inProcess ? new InProcessAddress("interop-" + System.nanoTime())
          : new InetSocketAddress("127.0.0.1", 0);
      TernServerBuilder serverBuilder = TernServerBuilder.create().listen(transport, address)
          .addService(TernTestService.definition(SCHEDULER));
      if (udp) {
        serverBuilder.transportOption(UdpTransportOptions.SERVER_STATIC_KEY, UDP_SERVER_KEY);
      } else if (!inProcess) {
        serverBuilder.tls(CERTS.server());
      }
      Server server = serverBuilder.build().start();
      SocketAddress bound = server.getListenSockets().get(0);
      TernChannelBuilder channelBuilder = bound instanceof InetSocketAddress
          ? TernChannelBuilder.forAddress("localhost", ((InetSocketAddress) bound).getPort())
          : TernChannelBuilder.forAddress(bound);
      channelBuilder.transports(transport);
      if (udp) {
        channelBuilder.usePlaintext().transportOption(UdpTransportOptions.PINNED_SERVER_KEY,
            UdpTransportOptions.publicKeyOf(UDP_SERVER_KEY));
      } else if (inProcess) {
        channelBuilder.usePlaintext();
      } else {
        channelBuilder.tls(CERTS.client());
      }
      return new Peers(server, channelBuilder.build());
    } catch (Exception e) {
      throw new IllegalStateException("cannot start a Tern server over " + transport, e);
    }
  }

  @AfterAll
  static void stop() throws InterruptedException {
    for (Peers peers : PEERS.values()) {
      peers.channel.shutdownNow();
      peers.server.shutdownNow();
      assertThat(peers.channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(peers.server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    PEERS.clear();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("cases")
  void passes(String transport, InteropCase testCase) throws Exception {
    Peers peers = peers(transport);
    new InteropClientCases(peers.channel).run(testCase);
    assertThat(TernChannels.connectionInfo(peers.channel).transport()).isEqualTo(transport);
  }
}
