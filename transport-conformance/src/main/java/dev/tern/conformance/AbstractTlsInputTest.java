package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernTls;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way a user can give Tern TLS material, each checked with a real TLS call over one
 * transport: PEM files and streams, a SEC1 key, PKCS#12 and JKS key stores, and grpc-java's own TLS
 * credentials with PEM, with key and trust managers, and with mutual TLS. A subclass names the
 * transport.
 */
@Timeout(60)
public abstract class AbstractTlsInputTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  private static final char[] PASSWORD = "store-password".toCharArray();

  @TempDir
  Path dir;

  private Server server;
  private ManagedChannel channel;

  /** The transport under test, by name. */
  protected abstract String transport();

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Starts a server set up by {@code tls}, calls it through a channel set up by {@code client}. */
  private void callsOverTls(UnaryOperator<TernServerBuilder> tls, UnaryOperator<TernChannelBuilder> client)
      throws Exception {
    server = tls.apply(TernServerBuilder.create().listen(transport(), new InetSocketAddress("127.0.0.1", 0)))
        .addService(Echo.service()).build().start();
    channel = client.apply(TernChannelBuilder.forAddress("localhost", server.getPort()).transports(transport()))
        .build();
    assertThat(Echo.call(channel, "over tls")).isEqualTo("over tls");
    assertThat(TernChannels.selectedTransport(channel)).isEqualTo(transport());
  }

  private File file(String name, byte[] content) throws Exception {
    return Files.write(dir.resolve(name), content).toFile();
  }

  private static TernTls trustPem() {
    return TernTls.newBuilder().trustManager(new ByteArrayInputStream(CERTS.certificatePem())).build();
  }

  @Test
  void pemFiles() throws Exception {
    File cert = file("cert.pem", CERTS.certificatePem());
    File key = file("key.pem", CERTS.privateKeyPem());
    callsOverTls(s -> s.useTransportSecurity(cert, key),
        c -> c.tls(TernTls.newBuilder().trustManager(cert).build()));
  }

  @Test
  void pemStreams() throws Exception {
    callsOverTls(s -> s.useTransportSecurity(new ByteArrayInputStream(CERTS.certificatePem()),
        new ByteArrayInputStream(CERTS.privateKeyPem())), c -> c.tls(trustPem()));
  }

  @Test
  void aSec1EcPrivateKeyIsAccepted() throws Exception {
    assertThat(new String(CERTS.sec1PrivateKeyPem(), java.nio.charset.StandardCharsets.US_ASCII))
        .contains("BEGIN EC PRIVATE KEY");
    File cert = file("cert.pem", CERTS.certificatePem());
    File key = file("ec-key.pem", CERTS.sec1PrivateKeyPem());
    callsOverTls(s -> s.useTransportSecurity(cert, key), c -> c.tls(trustPem()));
  }

  @Test
  void pkcs12KeyStores() throws Exception {
    KeyStore keys = CERTS.keyStore("PKCS12", PASSWORD);
    KeyStore trust = CERTS.trustStore("PKCS12");
    callsOverTls(s -> s.tls(TernTls.newBuilder().keyManager(keys, PASSWORD).build()),
        c -> c.tls(TernTls.newBuilder().trustManager(trust).build()));
  }

  @Test
  void jksKeyStores() throws Exception {
    KeyStore keys = CERTS.keyStore("JKS", PASSWORD);
    KeyStore trust = CERTS.trustStore("JKS");
    callsOverTls(s -> s.tls(TernTls.newBuilder().keyManager(keys, PASSWORD).build()),
        c -> c.tls(TernTls.newBuilder().trustManager(trust).build()));
  }

  @Test
  void grpcTlsCredentialsWithPem() throws Exception {
    io.grpc.ServerCredentials serverCredentials = TlsServerCredentials.create(
        new ByteArrayInputStream(CERTS.certificatePem()), new ByteArrayInputStream(CERTS.privateKeyPem()));
    io.grpc.ChannelCredentials channelCredentials = TlsChannelCredentials.newBuilder()
        .trustManager(new ByteArrayInputStream(CERTS.certificatePem())).build();
    callsOverTls(s -> s.credentials(serverCredentials), c -> c.credentials(channelCredentials));
  }

  @Test
  void grpcTlsCredentialsWithKeyAndTrustManagers() throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(CERTS.keyStore("PKCS12", PASSWORD), PASSWORD);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(CERTS.trustStore("PKCS12"));
    callsOverTls(s -> s.credentials(TlsServerCredentials.newBuilder().keyManager(kmf.getKeyManagers()).build()),
        c -> c.credentials(TlsChannelCredentials.newBuilder().trustManager(tmf.getTrustManagers()).build()));
  }

  @Test
  void grpcTlsCredentialsWithMutualTls() throws Exception {
    byte[] cert = CERTS.certificatePem();
    byte[] key = CERTS.privateKeyPem();
    io.grpc.ServerCredentials serverCredentials = TlsServerCredentials.newBuilder()
        .keyManager(new ByteArrayInputStream(cert), new ByteArrayInputStream(key))
        .trustManager(new ByteArrayInputStream(cert))
        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE).build();
    io.grpc.ChannelCredentials channelCredentials = TlsChannelCredentials.newBuilder()
        .keyManager(new ByteArrayInputStream(cert), new ByteArrayInputStream(key))
        .trustManager(new ByteArrayInputStream(cert)).build();
    callsOverTls(s -> s.credentials(serverCredentials), c -> c.credentials(channelCredentials));
  }

  /**
   * As with grpc-java, a server call over TLS carries the connection's session in {@code
   * Grpc.TRANSPORT_ATTR_SSL_SESSION} (so an interceptor can authorise by the client's certificate)
   * and reports the security level of the connection.
   */
  @Test
  void aServerCallSeesTheClientsCertificateAndTheConnectionsSecurityLevel() throws Exception {
    byte[] cert = CERTS.certificatePem();
    byte[] key = CERTS.privateKeyPem();
    java.util.concurrent.CompletableFuture<javax.net.ssl.SSLSession> session = new java.util.concurrent.CompletableFuture<>();
    java.util.concurrent.CompletableFuture<io.grpc.SecurityLevel> level = new java.util.concurrent.CompletableFuture<>();
    io.grpc.ServerInterceptor record = new io.grpc.ServerInterceptor() {
      @Override
      public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, R> call,
          io.grpc.Metadata headers, io.grpc.ServerCallHandler<Q, R> next) {
        javax.net.ssl.SSLSession s = call.getAttributes().get(io.grpc.Grpc.TRANSPORT_ATTR_SSL_SESSION);
        if (s == null) {
          session.completeExceptionally(new AssertionError("no TRANSPORT_ATTR_SSL_SESSION on the server call"));
        } else {
          session.complete(s);
        }
        level.complete(call.getSecurityLevel());
        return next.startCall(call, headers);
      }
    };
    server = TernServerBuilder.create().listen(transport(), new InetSocketAddress("127.0.0.1", 0))
        .credentials(TlsServerCredentials.newBuilder()
            .keyManager(new ByteArrayInputStream(cert), new ByteArrayInputStream(key))
            .trustManager(new ByteArrayInputStream(cert))
            .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE).build())
        .addService(io.grpc.ServerInterceptors.intercept(Echo.service(), record)).build().start();
    channel = TernChannelBuilder.forAddress("localhost", server.getPort()).transports(transport())
        .credentials(TlsChannelCredentials.newBuilder()
            .keyManager(new ByteArrayInputStream(cert), new ByteArrayInputStream(key))
            .trustManager(new ByteArrayInputStream(cert)).build()).build();
    assertThat(Echo.call(channel, "who am i")).isEqualTo("who am i");
    java.security.cert.Certificate[] peer = session.get(10, TimeUnit.SECONDS).getPeerCertificates();
    java.security.cert.Certificate expected = java.security.cert.CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(cert));
    assertThat(peer).as("the client's certificate chain as the server call sees it").isNotEmpty();
    assertThat(peer[0].getEncoded()).isEqualTo(expected.getEncoded());
    assertThat(level.get(10, TimeUnit.SECONDS)).isEqualTo(io.grpc.SecurityLevel.PRIVACY_AND_INTEGRITY);
  }

  @Test
  void aMutualTlsServerRefusesAClientWithoutACertificate() throws Exception {
    byte[] cert = CERTS.certificatePem();
    server = TernServerBuilder.create().listen(transport(), new InetSocketAddress("127.0.0.1", 0))
        .credentials(TlsServerCredentials.newBuilder()
            .keyManager(new ByteArrayInputStream(cert), new ByteArrayInputStream(CERTS.privateKeyPem()))
            .trustManager(new ByteArrayInputStream(cert))
            .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE).build())
        .addService(Echo.service()).build().start();
    channel = TernChannelBuilder.forAddress("localhost", server.getPort()).transports(transport())
        .tls(trustPem()).build();
    assertThat(Echo.failure(channel, "hi").getCode()).isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
  }
}
