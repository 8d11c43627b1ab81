package dev.tern.transport.quic;

import dev.tern.rpc.spi.TlsSettings;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.ssl.ClientAuth;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * TLS 1.3 contexts for QUIC (RFC 9001) from {@link TlsSettings}. The ALPN token is {@code h3}
 * (RFC 9114 §3.1): the Tern version travels in SETTINGS, so any HTTP/3 peer can connect.
 *
 * <p>Client contexts are shared process-wide by every client transport with the same TLS material
 * (whichever provider instance or channel made it), because the TLS session cache, and so 0-RTT
 * resumption, lives in the context: a new connection to a server resumes the session an earlier one
 * left. That cache is Netty's: keyed by the host and port each engine is made for, thread-safe, and
 * bounded to {@link #CLIENT_SESSION_CACHE_SIZE} servers. It lives in memory only: Netty's QUIC API
 * does not expose a session's bytes, so a store that survives a restart cannot be plugged in here.
 *
 * <p>A client's trust manager is wrapped in a {@link DiagnosingTrustManager}: BoringSSL reports every
 * rejected server certificate as {@code CERTIFICATE_VERIFY_FAILED}, while the JDK's verdict (an
 * untrusted issuer, a name mismatch, an expired certificate) is what a user needs.
 */
final class QuicTls {
  static final String ALPN = "h3";
  /** Servers whose latest session each client context remembers (least recently used dropped). */
  static final long CLIENT_SESSION_CACHE_SIZE = 1024;
  /** What a server without TLS is told to call. */
  static final String SERVER_NEEDS_TLS = "QUIC requires TLS (RFC 9001): call useTransportSecurity(certChainFile,"
      + " privateKeyFile) or tls(TernTls.newBuilder().keyManager(...).build()) on the TernServerBuilder";
  /** What a plaintext client is told. */
  static final String CLIENT_NEEDS_TLS = "QUIC requires TLS (RFC 9001) but the channel has none (usePlaintext()):"
      + " remove usePlaintext() from the TernChannelBuilder, and for a private or self-signed server certificate"
      + " call .tls(TernTls.newBuilder().trustManager(caFile).build()); or use transports(\"tcp\") for plaintext";
  private static final Map<List<Object>, Client> CLIENT_CONTEXTS = new ConcurrentHashMap<>();

  /** A shared client context and the trust manager that records why it rejected a certificate. */
  static final class Client {
    final QuicSslContext context;
    final DiagnosingTrustManager trust;

    Client(QuicSslContext context, DiagnosingTrustManager trust) {
      this.context = context;
      this.trust = trust;
    }
  }

  private QuicTls() {}

  /**
   * The server's context.
   *
   * @throws IllegalArgumentException when {@code tls} has no key, naming the builder methods to call
   */
  static QuicSslContext server(TlsSettings tls, boolean earlyData) {
    if (tls == null || !tls.hasKey()) {
      throw new IllegalArgumentException(SERVER_NEEDS_TLS + (tls == null ? "" : "; was " + tls));
    }
    QuicSslContextBuilder b = (tls.keyManager() != null
        ? QuicSslContextBuilder.forServer(tls.keyManager(), null)
        : QuicSslContextBuilder.forServer(tls.privateKey(), null, tls.certificateChain()))
        .applicationProtocols(ALPN)
        .earlyData(earlyData);
    if (tls.trustManager() != null) {
      b.trustManager(tls.trustManager()).clientAuth(ClientAuth.REQUIRE);
    } else if (tls.trustedCertificatesPem() != null) {
      b.trustManager(tls.trustedCertificates()).clientAuth(ClientAuth.REQUIRE);
    }
    return b.build();
  }

  /**
   * The client context for {@code tls}, shared and cached.
   *
   * @throws IllegalArgumentException when {@code tls} is null: QUIC has no plaintext
   */
  static Client client(TlsSettings tls, boolean earlyData) {
    if (tls == null) {
      throw new IllegalArgumentException(CLIENT_NEEDS_TLS);
    }
    List<Object> cacheKey = List.of(bytes(tls.trustedCertificatesPem()), bytes(tls.certificateChainPem()),
        bytes(tls.privateKeyPem()), identity(tls.trustManager()), identity(tls.keyManager()), earlyData);
    return CLIENT_CONTEXTS.computeIfAbsent(cacheKey, k -> {
      DiagnosingTrustManager trust = new DiagnosingTrustManager(trustManager(tls));
      QuicSslContextBuilder b = QuicSslContextBuilder.forClient()
          .applicationProtocols(ALPN)
          .earlyData(earlyData)
          .sessionCacheSize(CLIENT_SESSION_CACHE_SIZE)
          .endpointIdentificationAlgorithm("HTTPS")
          .trustManager(trust);
      if (tls.keyManager() != null) {
        b.keyManager(tls.keyManager(), null);
      } else if (tls.privateKeyPem() != null) {
        b.keyManager(tls.privateKey(), null, tls.certificateChain());
      }
      return new Client(b.build(), trust);
    });
  }

  /** The JSSE trust manager for {@code tls}: its own, one over its PEM, or the JDK's roots. */
  private static X509ExtendedTrustManager trustManager(TlsSettings tls) {
    TrustManager given = tls.trustManager();
    if (given != null) {
      if (!(given instanceof X509ExtendedTrustManager)) {
        throw new IllegalArgumentException("tls: QUIC needs an X509ExtendedTrustManager (it checks the server's"
            + " name), was " + given.getClass().getName());
      }
      return (X509ExtendedTrustManager) given;
    }
    try {
      KeyStore store = null;
      if (tls.trustedCertificatesPem() != null) {
        store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        for (java.security.cert.X509Certificate c : tls.trustedCertificates()) {
          store.setCertificateEntry("trusted-" + i++, c);
        }
      }
      TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      f.init(store);
      for (TrustManager m : f.getTrustManagers()) {
        if (m instanceof X509ExtendedTrustManager) {
          return (X509ExtendedTrustManager) m;
        }
      }
      throw new IllegalStateException("the JDK's TrustManagerFactory made no X509ExtendedTrustManager");
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalArgumentException("tls: cannot build a trust manager: " + e.getMessage(), e);
    }
  }

  private static Object bytes(byte[] b) {
    return java.nio.ByteBuffer.wrap(b == null ? new byte[0] : b);
  }

  private static Object identity(Object o) {
    return o == null ? "none" : new Identity(o);
  }

  /** Compares by identity: managers have no value equality. */
  private static final class Identity {
    final Object o;

    Identity(Object o) {
      this.o = o;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Identity && ((Identity) other).o == o;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(o);
    }
  }
}
