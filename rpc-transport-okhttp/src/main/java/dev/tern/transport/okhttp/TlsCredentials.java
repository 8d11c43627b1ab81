package dev.tern.transport.okhttp;

import dev.tern.rpc.spi.TlsSettings;
import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * grpc-java TLS credentials from {@link TlsSettings}, through the JSSE key and trust managers (the
 * platform's TLS: the JDK's, or Conscrypt on Android). PEM keys are read through the settings, so a
 * key is PKCS#8 whatever form it came in, then put in an in-memory key store of the platform's
 * default type. grpc-okhttp offers ALPN {@code h2} and requires it (RFC 7540 §3.3).
 */
final class TlsCredentials {
  private static final char[] NO_PASSWORD = new char[0];

  private TlsCredentials() {}

  /** Client credentials: trust the settings' certificates (or the platform's roots), maybe present a key. */
  static ChannelCredentials client(TlsSettings tls) {
    try {
      TlsChannelCredentials.Builder builder = TlsChannelCredentials.newBuilder();
      TrustManager[] trust = trustManagers(tls);
      if (trust != null) {
        builder.trustManager(trust);
      }
      KeyManager[] keys = keyManagers(tls);
      if (keys != null) {
        builder.keyManager(keys);
      }
      return builder.build();
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("tls: invalid client TLS settings " + tls + ": " + e.getMessage(), e);
    }
  }

  /** Server credentials; trusted certificates, when set, make client certificates required (mutual TLS). */
  static ServerCredentials server(TlsSettings tls) {
    if (!tls.hasKey()) {
      throw new IllegalArgumentException("tls: a server needs a certificate chain and a private key, got " + tls
          + "; call useTransportSecurity(certChainFile, privateKeyFile) or tls(TernTls...) on TernServerBuilder");
    }
    try {
      TlsServerCredentials.Builder builder = TlsServerCredentials.newBuilder().keyManager(keyManagers(tls));
      TrustManager[] trust = trustManagers(tls);
      if (trust != null) {
        builder.trustManager(trust).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
      }
      return builder.build();
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("tls: invalid server TLS settings " + tls + ": " + e.getMessage(), e);
    }
  }

  private static KeyManager[] keyManagers(TlsSettings tls) throws GeneralSecurityException {
    if (tls.keyManager() != null) {
      return new KeyManager[] {tls.keyManager()};
    }
    if (tls.privateKeyPem() == null) {
      return null;
    }
    PrivateKey key = tls.privateKey();
    X509Certificate[] chain = tls.certificateChain();
    KeyStore store = emptyStore();
    store.setKeyEntry("key", key, NO_PASSWORD, chain);
    KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, NO_PASSWORD);
    return factory.getKeyManagers();
  }

  private static TrustManager[] trustManagers(TlsSettings tls) throws GeneralSecurityException {
    if (tls.trustManager() != null) {
      return new TrustManager[] {tls.trustManager()};
    }
    if (tls.trustedCertificatesPem() == null) {
      return null;
    }
    KeyStore store = emptyStore();
    X509Certificate[] trusted = tls.trustedCertificates();
    for (int i = 0; i < trusted.length; i++) {
      store.setCertificateEntry("trusted-" + i, trusted[i]);
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return factory.getTrustManagers();
  }

  private static KeyStore emptyStore() throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    try {
      store.load(null, null);
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException("cannot create an in-memory key store", e);
    }
    return store;
  }
}
