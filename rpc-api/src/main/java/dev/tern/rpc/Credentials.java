package dev.tern.rpc;

import dev.tern.rpc.spi.TlsSettings;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * grpc-java credentials as Tern TLS settings: insecure credentials mean plaintext (null), TLS
 * credentials carry PEM or JSSE managers. Anything else (call credentials, choice credentials,
 * encrypted keys, TLS features Tern does not implement) is refused, naming what is unsupported.
 */
final class Credentials {
  private Credentials() {}

  /** The client settings for {@code credentials}; null for plaintext. */
  static TlsSettings client(ChannelCredentials credentials) {
    if (credentials instanceof InsecureChannelCredentials) {
      return null;
    }
    if (!(credentials instanceof TlsChannelCredentials)) {
      throw new IllegalArgumentException("credentials: Tern reads only TlsChannelCredentials and"
          + " InsecureChannelCredentials, not " + credentials.getClass().getName()
          + "; for call credentials use a ClientInterceptor or CallOptions.withCallCredentials");
    }
    TlsChannelCredentials tls = (TlsChannelCredentials) credentials;
    Set<TlsChannelCredentials.Feature> unknown =
        tls.incomprehensible(EnumSet.of(TlsChannelCredentials.Feature.MTLS, TlsChannelCredentials.Feature.CUSTOM_MANAGERS));
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("credentials use TLS features Tern does not support yet: " + unknown);
    }
    TlsSettings s = trust(TlsSettings.forClient(tls.getRootCertificates()), tls.getTrustManagers());
    return key(s, tls.getCertificateChain(), tls.getPrivateKey(), tls.getPrivateKeyPassword(), tls.getKeyManagers());
  }

  /** The server settings for {@code credentials}; null for plaintext. */
  static TlsSettings server(ServerCredentials credentials) {
    if (credentials instanceof InsecureServerCredentials) {
      return null;
    }
    if (!(credentials instanceof TlsServerCredentials)) {
      throw new IllegalArgumentException("credentials: Tern reads only TlsServerCredentials and"
          + " InsecureServerCredentials, not " + credentials.getClass().getName());
    }
    TlsServerCredentials tls = (TlsServerCredentials) credentials;
    Set<TlsServerCredentials.Feature> unknown =
        tls.incomprehensible(EnumSet.of(TlsServerCredentials.Feature.MTLS, TlsServerCredentials.Feature.CUSTOM_MANAGERS));
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("credentials use TLS features Tern does not support yet: " + unknown);
    }
    TlsSettings s = key(TlsSettings.forClient(null), tls.getCertificateChain(), tls.getPrivateKey(),
        tls.getPrivateKeyPassword(), tls.getKeyManagers());
    switch (tls.getClientAuth()) {
      case NONE:
        return s;
      case REQUIRE:
        if (tls.getRootCertificates() == null && tls.getTrustManagers() == null) {
          throw new IllegalArgumentException("credentials require client certificates (ClientAuth.REQUIRE) but"
              + " name no trust: set trustManager(...) on TlsServerCredentials.newBuilder()");
        }
        return tls.getRootCertificates() != null ? s.withTrustedCertificates(tls.getRootCertificates())
            : trust(s, tls.getTrustManagers());
      default:
        throw new IllegalArgumentException("credentials: client authentication " + tls.getClientAuth()
            + " is not supported by Tern yet; use ClientAuth.REQUIRE or ClientAuth.NONE");
    }
  }

  private static TlsSettings trust(TlsSettings s, List<TrustManager> managers) {
    return managers == null ? s : s.withTrustManager(TernTls.x509(managers.toArray(), X509TrustManager.class,
        "credentials' trust managers"));
  }

  private static TlsSettings key(TlsSettings s, byte[] chain, byte[] key, String password, List<KeyManager> managers) {
    if (password != null) {
      throw new IllegalArgumentException("credentials: encrypted private keys (a privateKeyPassword) are not"
          + " supported by Tern yet; decrypt the key: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key.pkcs8.pem");
    }
    if (key != null) {
      return s.withKeyCertificate(chain, key);
    }
    return managers == null ? s
        : s.withKeyManager(TernTls.x509(managers.toArray(), X509KeyManager.class, "credentials' key managers"));
  }
}
