package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.conformance.Echo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernTls;
import dev.tern.rpc.TransportMemory;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a user reads when QUIC cannot be used: no TLS on the channel or the server, a certificate
 * that is not trusted or not for the name, and, with no transport named, every racer's reason.
 */
@Timeout(60)
class QuicErrorMessagesTest {
  private static final dev.tern.conformance.TestCertificates CERTS = dev.tern.conformance.TestCertificates.generate();
  private static final dev.tern.conformance.TestCertificates OTHER = dev.tern.conformance.TestCertificates.generate();

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

  private int startQuicServer() throws Exception {
    server = TernServerBuilder.create().listen("quic", new InetSocketAddress("127.0.0.1", 0))
        .useTransportSecurity(new ByteArrayInputStream(CERTS.certificatePem()),
            new ByteArrayInputStream(CERTS.privateKeyPem()))
        .addService(Echo.service()).build().start();
    return server.getPort();
  }

  private static TernTls trusting(dev.tern.conformance.TestCertificates certs) {
    return TernTls.newBuilder().trustManager(new ByteArrayInputStream(certs.certificatePem())).build();
  }

  @Test
  void aPlaintextChannelNamingQuicFailsAtBuildSayingQuicNeedsTls() {
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost:1").transports("quic").usePlaintext().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'quic' needs TLS").hasMessageContaining("remove usePlaintext()")
        .hasMessageContaining(".tls(").hasMessageNotContaining("CERTIFICATE_VERIFY_FAILED");
  }

  @Test
  void aClientTransportWithoutTlsSaysQuicNeedsTlsNotCertificateVerifyFailed() throws Exception {
    java.util.concurrent.CompletableFuture<Status> shutdown = new java.util.concurrent.CompletableFuture<>();
    java.util.concurrent.CompletableFuture<Void> terminated = new java.util.concurrent.CompletableFuture<>();
    dev.tern.rpc.spi.ClientTransport t = new QuicTransportProvider().newClientTransport(
        new InetSocketAddress("127.0.0.1", 1), "localhost:1", dev.tern.rpc.spi.TransportOptions.defaults());
    t.start(new dev.tern.rpc.spi.ClientTransport.Listener() {
      @Override
      public void transportReady(dev.tern.rpc.ConnectionInfo info) {}

      @Override
      public void transportShutdown(Status status) {
        shutdown.complete(status);
      }

      @Override
      public void transportTerminated() {
        terminated.complete(null);
      }
    });
    Status s = shutdown.get(10, TimeUnit.SECONDS);
    terminated.get(10, TimeUnit.SECONDS);

    assertThat(s.getDescription()).contains("QUIC requires TLS").contains("usePlaintext()").contains(".tls(")
        .doesNotContain("CERTIFICATE_VERIFY_FAILED");
  }

  @Test
  void aPlaintextChannelNamingNoTransportLeavesQuicOutAndUsesTcp() throws Exception {
    server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).build().start();
    ManagedChannel c = track(TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
        .transportMemory(TransportMemory.builder().build()).build());

    assertThat(Echo.call(c, "hi")).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
  }

  @Test
  void aQuicServerWithoutTlsFailsAtBuildNamingTheBuilderMethods() {
    assertThatThrownBy(() -> TernServerBuilder.create().listen("quic", 0).addService(Echo.service()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs TLS").hasMessageContaining("useTransportSecurity(")
        .hasMessageContaining("tls(TernTls").hasMessageNotContaining("TransportOptions");
  }

  @Test
  void anUntrustedCertificateSaysNotTrustedNotCertificateVerifyFailed() throws Exception {
    int port = startQuicServer();
    ManagedChannel c = track(TernChannelBuilder.forAddress("localhost", port).transports("quic")
        .tls(trusting(OTHER)).build());

    Status s = Echo.failure(c, "hi");

    assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.getDescription()).contains("TLS handshake").contains("not trusted").contains("trustManager");
  }

  @Test
  void aCertificateForAnotherNameNamesTheExpectedName() throws Exception {
    int port = startQuicServer();
    ManagedChannel c = track(TernChannelBuilder.forAddress("localhost", port).transports("quic")
        .tls(TernTls.newBuilder().trustManager(new ByteArrayInputStream(CERTS.certificatePem()))
            .serverNameOverride("api.example.com").build()).build());

    Status s = Echo.failure(c, "hi");

    assertThat(s.getDescription()).contains("TLS handshake").contains("not for 'api.example.com'")
        .doesNotContain("not trusted");
  }

  @Test
  void withNoTransportNamedEveryRacersCauseIsInTheDescription() throws Exception {
    int port;
    // A port free on both TCP and UDP: nothing listens, so QUIC hears port unreachable, TCP a refusal.
    try (ServerSocket tcp = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), tcp.getLocalPort()))) {
      port = tcp.getLocalPort();
    }
    ManagedChannel c = track(TernChannelBuilder.forAddress("127.0.0.1", port).tls(trusting(CERTS))
        .transportMemory(TransportMemory.builder().build()).build());

    Status s = Echo.failure(c, "hi");

    assertThat(s.getDescription()).contains("failed over every transport")
        .contains("quic: ").contains("tcp: ").contains("connection refused")
        .contains("127.0.0.1:" + port);
  }
}
