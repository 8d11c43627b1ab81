package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The provider is found by name, and a missing key is a clear error on either side. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UdpTransportOptionsTest {
  @Test
  void theProviderIsRegisteredAsUdp() {
    boolean found = false;
    for (dev.tern.rpc.spi.TransportProvider p
        : ServiceLoader.load(dev.tern.rpc.spi.TransportProvider.class)) {
      found |= p instanceof UdpTransportProvider && p.name().equals("udp") && p.isAvailable();
    }
    assertThat(found).isTrue();
  }

  @Test
  void aServerWithoutItsKeyIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> new UdpTransportProvider().newServerTransport(
        new InetSocketAddress("127.0.0.1", 0), TransportOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("udp.serverStaticKey");
  }

  @Test
  void aClientWithoutAPinFailsItsConnectionNamingTheOption() throws Exception {
    ClientTransport t = new UdpTransportProvider().newClientTransport(
        new InetSocketAddress("127.0.0.1", 9), "localhost:9", TransportOptions.defaults());
    CompletableFuture<Status> shutdown = new CompletableFuture<>();
    CompletableFuture<Void> terminated = new CompletableFuture<>();
    t.start(new ClientTransport.Listener() {
      @Override
      public void transportReady(ConnectionInfo info) {}

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
    assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.getDescription()).contains("udp.pinnedServerKey");
    terminated.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aPinIsThePublicKeyOfTheServerKey() {
    byte[] key = UdpTransportOptions.newServerKey();
    assertThat(UdpTransportOptions.publicKeyOf(key)).hasSize(32).isNotEqualTo(key);
    assertThatThrownBy(() -> UdpTransportOptions.publicKeyOf(new byte[31]))
        .hasMessageContaining("31 bytes");
  }
}
