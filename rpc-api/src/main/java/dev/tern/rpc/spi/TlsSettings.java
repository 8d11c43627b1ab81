package dev.tern.rpc.spi;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

/**
 * TLS material as transports read it. A server sets its certificate chain and private key; a client
 * sets the certificates it trusts (null trusts the JDK's default roots) and may override the
 * expected server name. Both sides may set a key and chain for mutual TLS; on a server, trusted
 * certificates make a client certificate required.
 *
 * <p>Keys and certificates are PEM: the private key in PKCS#8 ({@code BEGIN PRIVATE KEY}), SEC1
 * ({@code BEGIN EC PRIVATE KEY}) or PKCS#1 ({@code BEGIN RSA PRIVATE KEY}); the last two are
 * converted to PKCS#8 here, so {@link #privateKeyPem()} is always PKCS#8. Unreadable PEM is refused
 * at once, naming the parameter. Instead of PEM, a side may bring a JSSE {@link KeyManager} or
 * {@link TrustManager} (from a {@code KeyStore}, say); a transport uses the manager when it is set.
 *
 * <p>Applications configure TLS with {@code dev.tern.rpc.TernTls} on the builders; this class is
 * what the builders hand to transports.
 */
public final class TlsSettings {
  private final byte[] certificateChainPem;
  private final byte[] privateKeyPem;
  private final byte[] trustedCertificatesPem;
  private final String serverNameOverride;
  private final KeyManager keyManager;
  private final TrustManager trustManager;

  private TlsSettings(byte[] chain, byte[] key, byte[] trust, String serverNameOverride, KeyManager keyManager,
      TrustManager trustManager) {
    this.certificateChainPem = chain;
    this.privateKeyPem = key;
    this.trustedCertificatesPem = trust;
    this.serverNameOverride = serverNameOverride;
    this.keyManager = keyManager;
    this.trustManager = trustManager;
  }

  /**
   * A server's (or mutual-TLS client's) own PEM certificate chain and private key.
   *
   * @param certificateChainPem the PEM chain, this side's own certificate first
   * @param privateKeyPem the unencrypted PEM private key (PKCS#8, SEC1 or PKCS#1)
   * @return settings presenting that key, trusting the JDK's default roots
   * @throws IllegalArgumentException if either is missing or is not readable PEM, naming which
   */
  public static TlsSettings forServer(byte[] certificateChainPem, byte[] privateKeyPem) {
    return new TlsSettings(null, null, null, null, null, null).withKeyCertificate(certificateChainPem, privateKeyPem);
  }

  /**
   * A server (or mutual-TLS client) whose key and certificate chain come from {@code keyManager}.
   *
   * @param keyManager the key manager
   * @return settings presenting what {@code keyManager} chooses
   * @throws IllegalArgumentException if {@code keyManager} is null
   */
  public static TlsSettings forServer(KeyManager keyManager) {
    return new TlsSettings(null, null, null, null, null, null).withKeyManager(keyManager);
  }

  /**
   * A client trusting {@code trustedCertificatesPem} (null: the JDK's default roots).
   *
   * @param trustedCertificatesPem PEM certificates to trust (copied), or null
   * @return settings with no key and that trust
   * @throws IllegalArgumentException if the PEM holds no readable certificate
   */
  public static TlsSettings forClient(byte[] trustedCertificatesPem) {
    if (trustedCertificatesPem != null) {
      certificates(trustedCertificatesPem, "trustedCertificatesPem");
    }
    return new TlsSettings(null, null, trustedCertificatesPem == null ? null : trustedCertificatesPem.clone(),
        null, null, null);
  }

  /**
   * A copy that trusts {@code trustedCertificatesPem} (for mutual TLS on a server), replacing a
   * trust manager.
   *
   * @param trustedCertificatesPem PEM certificates to trust (copied)
   * @return the copy
   * @throws IllegalArgumentException if the PEM is null or holds no readable certificate
   */
  public TlsSettings withTrustedCertificates(byte[] trustedCertificatesPem) {
    certificates(require(trustedCertificatesPem, "trustedCertificatesPem"), "trustedCertificatesPem");
    return new TlsSettings(certificateChainPem, privateKeyPem, trustedCertificatesPem.clone(), serverNameOverride,
        keyManager, null);
  }

  /**
   * A copy that verifies the peer with {@code manager} instead of trusted certificates.
   *
   * @param manager the trust manager
   * @return the copy
   * @throws IllegalArgumentException if {@code manager} is null
   */
  public TlsSettings withTrustManager(TrustManager manager) {
    return new TlsSettings(certificateChainPem, privateKeyPem, null, serverNameOverride, keyManager,
        require(manager, "trustManager"));
  }

  /**
   * A copy that presents {@code chain} and {@code key} (a client in mutual TLS), replacing a
   * key manager.
   *
   * @param chain the PEM certificate chain, this side's own certificate first (copied)
   * @param key the unencrypted PEM private key (PKCS#8, SEC1 or PKCS#1)
   * @return the copy, its key converted to PKCS#8
   * @throws IllegalArgumentException if either is missing or is not readable PEM, naming which
   */
  public TlsSettings withKeyCertificate(byte[] chain, byte[] key) {
    certificates(require(chain, "certificateChainPem"), "certificateChainPem");
    byte[] pkcs8 = PemKeys.toPkcs8(require(key, "privateKeyPem"), "privateKeyPem");
    return new TlsSettings(chain.clone(), pkcs8, trustedCertificatesPem, serverNameOverride, null, trustManager);
  }

  /**
   * A copy that presents the key and chain {@code manager} chooses, replacing a PEM key.
   *
   * @param manager the key manager
   * @return the copy
   * @throws IllegalArgumentException if {@code manager} is null
   */
  public TlsSettings withKeyManager(KeyManager manager) {
    return new TlsSettings(null, null, trustedCertificatesPem, serverNameOverride, require(manager, "keyManager"),
        trustManager);
  }

  /**
   * A copy expecting the server certificate to be for {@code name} instead of the authority's host.
   *
   * @param name the host name to verify, or null for the authority's host
   * @return the copy
   */
  public TlsSettings withServerNameOverride(String name) {
    return new TlsSettings(certificateChainPem, privateKeyPem, trustedCertificatesPem, name, keyManager, trustManager);
  }

  /**
   * The PEM certificate chain this side presents.
   *
   * @return a copy of it, or null
   */
  public byte[] certificateChainPem() { return certificateChainPem == null ? null : certificateChainPem.clone(); }

  /**
   * The PEM PKCS#8 private key this side presents.
   *
   * @return a copy of it, or null
   */
  public byte[] privateKeyPem() { return privateKeyPem == null ? null : privateKeyPem.clone(); }

  /**
   * The PEM certificates this side trusts.
   *
   * @return a copy of them, or null (the trust manager, or the JDK's roots)
   */
  public byte[] trustedCertificatesPem() { return trustedCertificatesPem == null ? null : trustedCertificatesPem.clone(); }

  /**
   * The server name to verify instead of the authority's host.
   *
   * @return the name, or null
   */
  public String serverNameOverride() { return serverNameOverride; }

  /**
   * The key manager this side presents its certificate with.
   *
   * @return the manager, or null (PEM, or none)
   */
  public KeyManager keyManager() { return keyManager; }

  /**
   * The trust manager this side verifies its peer with.
   *
   * @return the manager, or null (PEM, or the JDK's roots)
   */
  public TrustManager trustManager() { return trustManager; }

  /**
   * Whether this side presents a certificate: PEM chain and key, or a key manager.
   *
   * @return true if it does
   */
  public boolean hasKey() { return privateKeyPem != null || keyManager != null; }

  /**
   * Whether this side was given whom to trust (PEM or a trust manager) rather than the JDK's
   * roots.
   *
   * @return true if it was
   */
  public boolean hasTrust() { return trustedCertificatesPem != null || trustManager != null; }

  /**
   * The private key of {@link #privateKeyPem()}, parsed.
   *
   * @return the key, or null
   */
  public PrivateKey privateKey() {
    return privateKeyPem == null ? null : PemKeys.privateKey(privateKeyPem, "privateKeyPem");
  }

  /**
   * The certificates of {@link #certificateChainPem()}, parsed.
   *
   * @return the chain, or null
   */
  public X509Certificate[] certificateChain() {
    return certificateChainPem == null ? null : certificates(certificateChainPem, "certificateChainPem");
  }

  /**
   * The certificates of {@link #trustedCertificatesPem()}, parsed.
   *
   * @return the certificates, or null
   */
  public X509Certificate[] trustedCertificates() {
    return trustedCertificatesPem == null ? null : certificates(trustedCertificatesPem, "trustedCertificatesPem");
  }

  private static <T> T require(T value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " is required, was null");
    }
    return value;
  }

  private static X509Certificate[] certificates(byte[] pem, String name) {
    X509Certificate[] certs;
    try {
      certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem)).stream()
          .map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(name + " is not PEM X.509 certificates (-----BEGIN CERTIFICATE-----): "
          + e.getMessage(), e);
    }
    if (certs.length == 0) {
      throw new IllegalArgumentException(name + " holds no certificate (expected -----BEGIN CERTIFICATE-----)");
    }
    return certs;
  }

  @Override
  public String toString() {
    return "TlsSettings{key=" + (privateKeyPem != null ? "pem" : keyManager != null ? "keyManager" : "none")
        + ", trust=" + (trustedCertificatesPem != null ? "pem" : trustManager != null ? "trustManager" : "default")
        + ", serverNameOverride=" + serverNameOverride + ", hash=" + Arrays.hashCode(certificateChainPem) + '}';
  }
}
