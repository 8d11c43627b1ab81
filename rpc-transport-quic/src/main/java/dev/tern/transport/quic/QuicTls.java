package dev.tern.transport.quic;

import dev.tern.rpc.spi.TlsSettings;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.ssl.ClientAuth;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * TLS 1.3 contexts for QUIC (RFC 9001) from {@link TlsSettings} PEM. The ALPN token is {@code h3}
 * (RFC 9114 §3.1): the Tern version travels in SETTINGS, so any HTTP/3 peer can connect.
 *
 * <p>Client contexts are shared process-wide by every client transport with the same TLS material
 * (whichever provider instance or channel made it), because the TLS session cache, and so 0-RTT
 * resumption, lives in the context: a new connection to a server resumes the session an earlier one
 * left. That cache is Netty's: keyed by the host and port each engine is made for, thread-safe, and
 * bounded to {@link #CLIENT_SESSION_CACHE_SIZE} servers. It lives in memory only: Netty's QUIC API
 * does not expose a session's bytes, so a store that survives a restart cannot be plugged in here.
 */
final class QuicTls {
  static final String ALPN = "h3";
  /** Servers whose latest session each client context remembers (least recently used dropped). */
  static final long CLIENT_SESSION_CACHE_SIZE = 1024;
  private static final Map<List<Object>, QuicSslContext> CLIENT_CONTEXTS = new ConcurrentHashMap<>();

  private QuicTls() {}

  /**
   * The server's context.
   *
   * @throws IllegalArgumentException when {@code tls} lacks a certificate chain or key, or the PEM
   *     cannot be read
   */
  static QuicSslContext server(TlsSettings tls, boolean earlyData) {
    if (tls == null || tls.certificateChainPem() == null || tls.privateKeyPem() == null) {
      throw new IllegalArgumentException(
          "QUIC requires TLS: set TransportOptions.TLS to TlsSettings.forServer(chain, key), was " + tls);
    }
    QuicSslContextBuilder b = QuicSslContextBuilder
        .forServer(privateKey(tls.privateKeyPem()), null, certificates(tls.certificateChainPem(), "certificateChainPem"))
        .applicationProtocols(ALPN)
        .earlyData(earlyData);
    if (tls.trustedCertificatesPem() != null) {
      b.trustManager(certificates(tls.trustedCertificatesPem(), "trustedCertificatesPem")).clientAuth(ClientAuth.REQUIRE);
    }
    return b.build();
  }

  /** The client context for {@code tls} (null: the JDK's default roots), shared and cached. */
  static QuicSslContext client(TlsSettings tls, boolean earlyData) {
    byte[] trust = tls == null ? null : tls.trustedCertificatesPem();
    byte[] chain = tls == null ? null : tls.certificateChainPem();
    byte[] key = tls == null ? null : tls.privateKeyPem();
    List<Object> cacheKey = List.of(wrap(trust), wrap(chain), wrap(key), earlyData);
    return CLIENT_CONTEXTS.computeIfAbsent(cacheKey, k -> {
      QuicSslContextBuilder b = QuicSslContextBuilder.forClient()
          .applicationProtocols(ALPN)
          .earlyData(earlyData)
          .sessionCacheSize(CLIENT_SESSION_CACHE_SIZE)
          .endpointIdentificationAlgorithm("HTTPS");
      if (trust != null) {
        b.trustManager(certificates(trust, "trustedCertificatesPem"));
      }
      if (chain != null && key != null) {
        b.keyManager(privateKey(key), null, certificates(chain, "certificateChainPem"));
      }
      return b.build();
    });
  }

  private static ByteBuffer wrap(byte[] b) {
    return ByteBuffer.wrap(b == null ? new byte[0] : b);
  }

  static X509Certificate[] certificates(byte[] pem, String name) {
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      X509Certificate[] certs = cf.generateCertificates(new ByteArrayInputStream(pem)).stream()
          .map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
      if (certs.length == 0) {
        throw new IllegalArgumentException(name + " holds no certificate");
      }
      return certs;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(name + " is not PEM X.509: " + e.getMessage(), e);
    }
  }

  static PrivateKey privateKey(byte[] pem) {
    String text = new String(pem, StandardCharsets.US_ASCII);
    int begin = text.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = text.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException("privateKeyPem must be an unencrypted PKCS#8 PEM (BEGIN PRIVATE KEY)");
    }
    byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + 27, end));
    for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException tryNext) {
        // not this algorithm
      }
    }
    throw new IllegalArgumentException("privateKeyPem is neither an EC, RSA nor Ed25519 PKCS#8 key");
  }
}
