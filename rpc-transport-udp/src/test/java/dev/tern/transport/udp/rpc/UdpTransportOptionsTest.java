package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.connection.ConnectionConfig;
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
  void theServersConnectionLimitIsUdpsOwnIfSetElseTheCommonOneElseTenThousand() {
    TransportOptions none = TransportOptions.defaults();
    assertThat(UdpTransportOptions.maxConnections(none)).isEqualTo(10_000);
    assertThat(UdpTransportOptions.maxConnections(none.with(TransportOptions.MAX_CONNECTIONS, 50))).isEqualTo(50);
    assertThat(UdpTransportOptions.maxConnections(none.with(TransportOptions.MAX_CONNECTIONS, 0)))
        .as("0: no limit").isEqualTo(Integer.MAX_VALUE);
    assertThat(UdpTransportOptions.maxConnections(none.with(TransportOptions.MAX_CONNECTIONS, 50)
        .with(UdpTransportOptions.MAX_CONNECTIONS, 7))).isEqualTo(7);
    assertThatThrownBy(() -> UdpTransportOptions.maxConnections(none.with(UdpTransportOptions.MAX_CONNECTIONS, 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("udp.maxConnections");
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
  void keepAliveAndIdleOptionsBecomeTheProtocolsSettings() {
    TransportOptions keys = TransportOptions.defaults()
        .with(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(
            UdpTransportOptions.newServerKey()));
    ConnectionConfig unset = UdpTransportOptions.client(keys);
    assertThat(unset.keepAliveMs()).as("the protocol's default").isEqualTo(15_000);
    assertThat(unset.keepAliveTimeoutMs()).as("grpc-java's default").isEqualTo(20_000);
    assertThat(unset.idleTimeoutMs()).isEqualTo(30_000);
    ConnectionConfig set = UdpTransportOptions.client(keys
        .with(TransportOptions.KEEP_ALIVE_MILLIS, 10_000L)
        .with(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS, 5_000L)
        .with(UdpTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, 20_000L));
    assertThat(set.keepAliveMs()).isEqualTo(10_000);
    assertThat(set.keepAliveTimeoutMs()).isEqualTo(5_000);
    assertThat(set.idleTimeoutMs()).isEqualTo(20_000);
    ConnectionConfig off = UdpTransportOptions.client(keys
        .with(TransportOptions.KEEP_ALIVE_MILLIS, TimeUnit.DAYS.toMillis(1000)));
    assertThat(off.keepAliveMs()).as("1000 days: off, as grpc-java").isZero();
    ConnectionConfig justUnder = UdpTransportOptions.client(keys
        .with(TransportOptions.KEEP_ALIVE_MILLIS, TimeUnit.DAYS.toMillis(1000) - 1));
    assertThat(justUnder.keepAliveMs()).isEqualTo(TimeUnit.DAYS.toMillis(1000) - 1);
  }

  @Test
  void aClientWithANegativeIdleTimeoutFailsItsConnectionNamingTheOption() throws Exception {
    ClientTransport t = new UdpTransportProvider().newClientTransport(
        new InetSocketAddress("127.0.0.1", 9), "localhost:9", TransportOptions.defaults()
            .with(UdpTransportOptions.PINNED_SERVER_KEY, new byte[32])
            .with(UdpTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, -5L));
    CompletableFuture<Status> shutdown = new CompletableFuture<>();
    t.start(new ClientTransport.Listener() {
      @Override
      public void transportReady(ConnectionInfo info) {}

      @Override
      public void transportShutdown(Status status) {
        shutdown.complete(status);
      }

      @Override
      public void transportTerminated() {}
    });
    Status s = shutdown.get(10, TimeUnit.SECONDS);
    assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.getDescription()).contains("udp.maxIdleTimeoutMillis").contains("-5");
  }

  @Test
  void theCongestionControlOptionChoosesTheConnectionsController() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    try {
      assertThat(controllerOf(server, null)).as("the default").isEqualTo("Bbr");
      assertThat(controllerOf(server, CongestionControl.CUBIC)).isEqualTo("Cubic");
      assertThat(controllerOf(server, CongestionControl.NEW_RENO)).isEqualTo("NewReno");
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }

  /** The class of the controller a client connection with {@code cc} runs. */
  private static String controllerOf(Loopback.EchoServer server, CongestionControl cc)
      throws Exception {
    TransportOptions options = Loopback.clientOptions();
    if (cc != null) {
      options = options.with(UdpTransportOptions.CONGESTION_CONTROL, cc);
    }
    UdpClientTransport client = Loopback.connect(server.port(), options, new Loopback.Events());
    try {
      CompletableFuture<String> name = new CompletableFuture<>();
      assertThat(client.run(() -> name.complete(
          client.connection().congestionController().getClass().getSimpleName()))).isTrue();
      return name.get(10, TimeUnit.SECONDS);
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
    }
  }

  @Test
  void theCryptoProviderOptionChoosesTheConnectionsCryptography() {
    TransportOptions keys = TransportOptions.defaults().with(UdpTransportOptions.PINNED_SERVER_KEY, new byte[32]);
    assertThat(UdpTransportOptions.client(keys).cryptoProvider().name()).as("auto, on a JDK").isEqualTo("jdk");
    assertThat(UdpTransportOptions.client(keys.with(UdpTransportOptions.CRYPTO_PROVIDER, "bc"))
        .cryptoProvider().name()).isEqualTo("bc");
    assertThatThrownBy(() -> UdpTransportOptions.client(keys.with(UdpTransportOptions.CRYPTO_PROVIDER, "rot13")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("udp.cryptoProvider")
        .hasMessageContaining("rot13");
  }

  /** A client on BouncyCastle (as on Android) and a server on the JDK's crypto talk. */
  @Test
  void aClientOnBouncyCastleCallsAServerOnTheJdksCrypto() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(UdpTransportOptions.CRYPTO_PROVIDER, "jdk"));
    try {
      UdpClientTransport client = Loopback.connect(server.port(),
          Loopback.clientOptions().with(UdpTransportOptions.CRYPTO_PROVIDER, "bc"), new Loopback.Events());
      try {
        CompletableFuture<String> name = new CompletableFuture<>();
        assertThat(client.run(() -> name.complete(client.connection().cryptoProviderName()))).isTrue();
        assertThat(name.get(10, TimeUnit.SECONDS)).isEqualTo("bc");
        Loopback.Call call = Loopback.echo(client, "test.Crypto/Echo", "over BouncyCastle");
        assertThat(call.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
        assertThat(call.messages.poll()).isEqualTo("over BouncyCastle");
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aPinIsThePublicKeyOfTheServerKey() {
    byte[] key = UdpTransportOptions.newServerKey();
    assertThat(UdpTransportOptions.publicKeyOf(key)).hasSize(32).isNotEqualTo(key);
    assertThatThrownBy(() -> UdpTransportOptions.publicKeyOf(new byte[31]))
        .hasMessageContaining("31 bytes");
  }
}
