package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.conformance.Echo;
import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernTls;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a user reads when a TCP connection fails, or a builder is given a wrong transport name. */
@Timeout(60)
class TcpErrorMessagesTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  private static final TestCertificates OTHER = TestCertificates.generate();

  private final List<ManagedChannel> channels = new ArrayList<>();
  private Server server;

  @AfterEach
  void tearDown() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private ManagedChannel track(ManagedChannel c) {
    channels.add(c);
    return c;
  }

  private int startTlsServer() throws Exception {
    server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .useTransportSecurity(new ByteArrayInputStream(CERTS.certificatePem()),
            new ByteArrayInputStream(CERTS.privateKeyPem()))
        .addService(Echo.service()).build().start();
    return server.getPort();
  }

  @Test
  void aRefusedConnectionNamesHostPortAndRefusal() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    ManagedChannel c = track(TernChannelBuilder.forAddress("127.0.0.1", port).transports("tcp").usePlaintext().build());

    Status s = Echo.failure(c, "hi");

    assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.getDescription()).contains("127.0.0.1:" + port).contains("connection refused")
        .doesNotEndWith("io exception");
  }

  @Test
  void anUntrustedCertificateSaysSoAndHowToTrustIt() throws Exception {
    int port = startTlsServer();
    ManagedChannel c = track(TernChannelBuilder.forAddress("localhost", port).transports("tcp")
        .tls(TernTls.newBuilder().trustManager(new ByteArrayInputStream(OTHER.certificatePem())).build()).build());

    Status s = Echo.failure(c, "hi");

    assertThat(s.getDescription()).contains("TLS handshake").contains("not trusted").contains("trustManager")
        .contains("localhost:" + port);
  }

  @Test
  void aCertificateForAnotherNameNamesTheExpectedName() throws Exception {
    int port = startTlsServer();
    ManagedChannel c = track(TernChannelBuilder.forAddress("localhost", port).transports("tcp")
        .tls(TernTls.newBuilder().trustManager(new ByteArrayInputStream(CERTS.certificatePem()))
            .serverNameOverride("api.example.com").build()).build());

    Status s = Echo.failure(c, "hi");

    assertThat(s.getDescription()).contains("TLS handshake").contains("not for 'api.example.com'");
  }

  @Test
  void aTlsClientOnAPlaintextPortIsToldTheServerDoesNotSpeakTls() throws Exception {
    server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).build().start();
    ManagedChannel c = track(TernChannelBuilder.forAddress("localhost", server.getPort()).transports("tcp")
        .tls(TernTls.newBuilder().trustManager(new ByteArrayInputStream(CERTS.certificatePem())).build()).build());

    Status s = Echo.failure(c, "hi");

    assertThat(s.getDescription()).contains("TLS handshake").contains("localhost:" + server.getPort());
  }

  @Test
  void aMisspeltTransportFailsAtBuildSuggestingTheRightOne() {
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost:1").transports("tpc").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown transport 'tpc'").hasMessageContaining("tcp")
        .hasMessageContaining("did you mean 'tcp'?");
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost:1").transports("TCP").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lower case: did you mean 'tcp'?");
    assertThatThrownBy(() -> TernServerBuilder.create().listen("tpc", 0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listen(\"tpc\"").hasMessageContaining("did you mean 'tcp'?");
    assertThatThrownBy(() -> TernServerBuilder.create().listen("TCP", 0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("did you mean 'tcp'?");
  }

  @Test
  void aTernTransportMissingFromTheClassPathNamesItsArtifact() {
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost:1").transports("quic").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dev.tern:rpc-transport-quic");
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost:1").transports("udp").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dev.tern:rpc-transport-udp");
  }
}
