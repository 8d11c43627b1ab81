package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannelProvider;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernServerProvider;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelProvider;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerProvider;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.security.KeyStore;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The entry points grpc-java users build with: {@code Grpc.newChannelBuilder} and {@code
 * Grpc.newServerBuilderForPort} with TLS credentials (PEM, key stores through key and trust
 * managers), reaching Tern through its registered providers, which rank below grpc-netty.
 */
@Timeout(60)
class GrpcEntryPointsTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  private static final char[] PASSWORD = "changeit".toCharArray();

  private static <T> T load(Class<? super T> service, Class<T> type) {
    for (Object p : ServiceLoader.load(service)) {
      if (type.isInstance(p)) {
        return type.cast(p);
      }
    }
    throw new AssertionError(type.getName() + " is not registered in META-INF/services/" + service.getName());
  }

  @Test
  void ternRanksBelowGrpcNettySoItNeverDisplacesIt() {
    // Below grpc-netty (5) and grpc-okhttp (channels 3, servers 4).
    assertThat(load(ManagedChannelProvider.class, TernChannelProvider.class).priority()).isLessThan(3);
    assertThat(load(ServerProvider.class, TernServerProvider.class).priority()).isLessThan(3);
    // grpc-netty is on this class path: grpc-java's entry points still pick it.
    assertThat(Grpc.newChannelBuilder("localhost:1", InsecureChannelCredentials.create()))
        .isInstanceOf(NettyChannelBuilder.class);
    assertThat(Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()))
        .isInstanceOf(NettyServerBuilder.class);
  }

  @Test
  void pemCredentialsThroughTheProvidersMakeAWorkingTlsChannel() throws Exception {
    ServerCredentials serverCreds = TlsServerCredentials.create(
        new ByteArrayInputStream(CERTS.certificatePem()), new ByteArrayInputStream(CERTS.privateKeyPem()));
    ChannelCredentials channelCreds = TlsChannelCredentials.newBuilder()
        .trustManager(new ByteArrayInputStream(CERTS.certificatePem())).build();
    assertHealthy(serverCreds, channelCreds);
  }

  @Test
  void keyStoreCredentialsThroughKeyAndTrustManagersMakeAWorkingTlsChannel() throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(CERTS.keyStore("PKCS12", PASSWORD), PASSWORD);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(CERTS.trustStore(KeyStore.getDefaultType()));
    ServerCredentials serverCreds = TlsServerCredentials.newBuilder().keyManager(kmf.getKeyManagers()).build();
    ChannelCredentials channelCreds = TlsChannelCredentials.newBuilder().trustManager(tmf.getTrustManagers()).build();
    assertHealthy(serverCreds, channelCreds);
  }

  @Test
  void whatTernCannotBuildIsAnErrorResultNamingIt() throws Exception {
    TernChannelProvider channels = load(ManagedChannelProvider.class, TernChannelProvider.class);
    assertThat(channels.newChannelBuilder("a:1,b:2", InsecureChannelCredentials.create()).getError())
        .contains("Tern", "'a:1,b:2'");
    TernServerProvider servers = load(ServerProvider.class, TernServerProvider.class);
    ServerCredentials optionalAuth = TlsServerCredentials.newBuilder()
        .keyManager(new ByteArrayInputStream(CERTS.certificatePem()), new ByteArrayInputStream(CERTS.privateKeyPem()))
        .clientAuth(TlsServerCredentials.ClientAuth.OPTIONAL).build();
    assertThat(servers.newServerBuilderForPort(0, optionalAuth).getError()).contains("Tern", "OPTIONAL");
    assertThat(servers.newServerBuilderForPort(0, InsecureServerCredentials.create()).getServerBuilder())
        .isInstanceOf(TernServerBuilder.class);
  }

  /**
   * A health check over TLS: the server from {@code serverCreds} (on loopback, port 0), the channel
   * from the registered channel provider with {@code channelCreds}.
   */
  private static void assertHealthy(ServerCredentials serverCreds, ChannelCredentials channelCreds) throws Exception {
    HealthStatusManager health = new HealthStatusManager();
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .credentials(serverCreds).addService(health.getHealthService()).build().start();
    TernChannelProvider provider = load(ManagedChannelProvider.class, TernChannelProvider.class);
    ManagedChannelProvider.NewChannelBuilderResult result =
        provider.newChannelBuilder("localhost:" + server.getPort(), channelCreds);
    assertThat(result.getError()).isNull();
    assertThat(result.getChannelBuilder()).isInstanceOf(TernChannelBuilder.class);
    ManagedChannel channel = result.getChannelBuilder().build();
    try {
      HealthCheckResponse answer = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance());
      assertThat(answer.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
