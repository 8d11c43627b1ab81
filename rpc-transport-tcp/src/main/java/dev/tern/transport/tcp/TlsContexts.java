package dev.tern.transport.tcp;

import dev.tern.rpc.spi.TlsSettings;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.ByteArrayInputStream;
import javax.net.ssl.SSLException;

/** Netty TLS contexts (ALPN h2, grpc's cipher suites) from PEM {@link TlsSettings}. */
final class TlsContexts {
  private TlsContexts() {}

  /** A client context; {@code tls} trusts its certificates (or the JDK's roots) and may present a key. */
  static SslContext client(TlsSettings tls) {
    try {
      SslContextBuilder builder = GrpcSslContexts.forClient();
      byte[] trust = tls.trustedCertificatesPem();
      if (trust != null) {
        builder.trustManager(new ByteArrayInputStream(trust));
      }
      byte[] chain = tls.certificateChainPem();
      byte[] key = tls.privateKeyPem();
      if (chain != null && key != null) {
        builder.keyManager(new ByteArrayInputStream(chain), new ByteArrayInputStream(key));
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("tls: invalid client TLS settings " + tls + ": " + e.getMessage(), e);
    }
  }

  /** A server context; trusted certificates, when set, make client certificates required (mutual TLS). */
  static SslContext server(TlsSettings tls) {
    byte[] chain = tls.certificateChainPem();
    byte[] key = tls.privateKeyPem();
    if (chain == null || key == null) {
      throw new IllegalArgumentException("tls: a server needs a certificate chain and a private key, got " + tls);
    }
    try {
      SslContextBuilder builder =
          GrpcSslContexts.forServer(new ByteArrayInputStream(chain), new ByteArrayInputStream(key));
      byte[] trust = tls.trustedCertificatesPem();
      if (trust != null) {
        builder.trustManager(new ByteArrayInputStream(trust)).clientAuth(ClientAuth.REQUIRE);
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("tls: invalid server TLS settings " + tls + ": " + e.getMessage(), e);
    }
  }
}
