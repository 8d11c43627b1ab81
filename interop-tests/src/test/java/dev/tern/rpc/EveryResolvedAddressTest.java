package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.Echo;
import dev.tern.conformance.TestCertificates;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A target that resolves to several addresses is tried at each, in order, on real sockets: the
 * first address refuses (nothing listens) or swallows every packet (a bound socket that never
 * answers), the second is a live server, and the call succeeds. grpc-java's pick_first does the
 * same; before, Tern tried only the first address. When every address fails, the status names each.
 */
class EveryResolvedAddressTest {
  private static final TestCertificates CERTS = TestCertificates.generate();

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"tcp", "quic"})
  @Timeout(60)
  void aDeadFirstAddressIsPassedOverForTheNext(String transport) throws Exception {
    Server server = TernServerBuilder.create().listen(transport, new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).tls(CERTS.server()).build().start();
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    // A port that refuses (nothing bound) and one that swallows: a TCP listener that never
    // completes a TLS handshake (it never reads), or a UDP socket that answers no Initial.
    int refusing;
    try (ServerSocket probe = new ServerSocket(0, 1, loopback)) {
      refusing = probe.getLocalPort();
    }
    try (ServerSocket tcpHole = new ServerSocket(0, 50, loopback);
        DatagramSocket udpHole = new DatagramSocket(0, loopback)) {
      int hole = transport.equals("tcp") ? tcpHole.getLocalPort() : udpHole.getLocalPort();
      List<SocketAddress> addresses = List.of(new InetSocketAddress(loopback, refusing),
          new InetSocketAddress(loopback, hole), new InetSocketAddress(loopback, server.getPort()));
      ManagedChannel channel = TernChannelBuilder.forAddresses(() -> addresses, "localhost:" + server.getPort())
          .transports(transport).tls(CERTS.client()).build();
      try {
        assertThat(Echo.call(channel, "third address")).isEqualTo("third address");
        assertThat(TernChannels.selectedTransport(channel)).isEqualTo(transport);
      } finally {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        server.shutdownNow();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"tcp", "quic"})
  @Timeout(60)
  void whenEveryAddressFailsTheStatusNamesEach(String transport) throws Exception {
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    int a;
    int b;
    try (ServerSocket one = new ServerSocket(0, 1, loopback); ServerSocket two = new ServerSocket(0, 1, loopback)) {
      a = one.getLocalPort();
      b = two.getLocalPort();
    }
    List<SocketAddress> addresses = List.of(new InetSocketAddress(loopback, a), new InetSocketAddress(loopback, b));
    ManagedChannel channel = TernChannelBuilder.forAddresses(() -> addresses, "localhost:" + a)
        .transports(transport).tls(CERTS.client()).build();
    try {
      Status status = Echo.failure(channel, "nobody");
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("127.0.0.1:" + a).contains("127.0.0.1:" + b);
    } finally {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
