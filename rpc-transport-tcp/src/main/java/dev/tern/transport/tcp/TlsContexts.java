package dev.tern.transport.tcp;

import dev.tern.rpc.spi.TlsSettings;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import javax.net.ssl.SSLException;

/**
 * Netty TLS contexts (ALPN h2, grpc's cipher suites) from {@link TlsSettings}: PEM, read through the
 * settings (so a key is PKCS#8 whatever form it came in), or the JSSE managers the settings carry.
 */
final class TlsContexts {
  private TlsContexts() {}

  /** A client context; {@code tls} trusts its certificates (or the JDK's roots) and may present a key. */
  static SslContext client(TlsSettings tls) {
    try {
      SslContextBuilder builder = GrpcSslContexts.forClient();
      trust(builder, tls);
      if (tls.keyManager() != null) {
        builder.keyManager(tls.keyManager());
      } else if (tls.privateKeyPem() != null) {
        builder.keyManager(tls.privateKey(), tls.certificateChain());
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("tls: invalid client TLS settings " + tls + ": " + e.getMessage(), e);
    }
  }

  /** A server context; trusted certificates, when set, make client certificates required (mutual TLS). */
  static SslContext server(TlsSettings tls) {
    if (!tls.hasKey()) {
      throw new IllegalArgumentException("tls: a server needs a certificate chain and a private key, got " + tls
          + "; call useTransportSecurity(certChainFile, privateKeyFile) or tls(TernTls...) on TernServerBuilder");
    }
    try {
      SslContextBuilder builder = tls.keyManager() != null
          ? SslContextBuilder.forServer(tls.keyManager())
          : SslContextBuilder.forServer(tls.privateKey(), tls.certificateChain());
      GrpcSslContexts.configure(builder);
      if (tls.hasTrust()) {
        trust(builder, tls);
        builder.clientAuth(ClientAuth.REQUIRE);
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("tls: invalid server TLS settings " + tls + ": " + e.getMessage(), e);
    }
  }

  private static void trust(SslContextBuilder builder, TlsSettings tls) {
    if (tls.trustManager() != null) {
      builder.trustManager(tls.trustManager());
    } else if (tls.trustedCertificatesPem() != null) {
      builder.trustManager(tls.trustedCertificates());
    }
  }
}
