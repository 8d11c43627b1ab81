package dev.tern.rpc.spi;

import java.util.Arrays;

/**
 * TLS material in PEM form. A server sets its certificate chain and private key; a client sets the
 * certificates it trusts (null trusts the JDK's default roots) and may override the expected server
 * name. Both sides may set a key and chain for mutual TLS.
 */
public final class TlsSettings {
  private final byte[] certificateChainPem;
  private final byte[] privateKeyPem;
  private final byte[] trustedCertificatesPem;
  private final String serverNameOverride;

  private TlsSettings(byte[] chain, byte[] key, byte[] trust, String serverNameOverride) {
    this.certificateChainPem = chain;
    this.privateKeyPem = key;
    this.trustedCertificatesPem = trust;
    this.serverNameOverride = serverNameOverride;
  }

  /** A server's (or mutual-TLS client's) own certificate chain and PKCS#8 private key. */
  public static TlsSettings forServer(byte[] certificateChainPem, byte[] privateKeyPem) {
    if (certificateChainPem == null || privateKeyPem == null) {
      throw new IllegalArgumentException("certificateChainPem and privateKeyPem are both required");
    }
    return new TlsSettings(certificateChainPem.clone(), privateKeyPem.clone(), null, null);
  }

  /** A client trusting {@code trustedCertificatesPem} (null: the JDK's default roots). */
  public static TlsSettings forClient(byte[] trustedCertificatesPem) {
    return new TlsSettings(null, null,
        trustedCertificatesPem == null ? null : trustedCertificatesPem.clone(), null);
  }

  /** A copy that also trusts {@code trustedCertificatesPem} (for mutual TLS on a server). */
  public TlsSettings withTrustedCertificates(byte[] trustedCertificatesPem) {
    return new TlsSettings(certificateChainPem, privateKeyPem, trustedCertificatesPem.clone(), serverNameOverride);
  }

  /** A copy that presents {@code chain} and {@code key} (a client in mutual TLS). */
  public TlsSettings withKeyCertificate(byte[] chain, byte[] key) {
    return new TlsSettings(chain.clone(), key.clone(), trustedCertificatesPem, serverNameOverride);
  }

  /** A copy expecting the server certificate to be for {@code name} instead of the authority's host. */
  public TlsSettings withServerNameOverride(String name) {
    return new TlsSettings(certificateChainPem, privateKeyPem, trustedCertificatesPem, name);
  }

  /** A copy of the PEM certificate chain this side presents, or null. */
  public byte[] certificateChainPem() { return certificateChainPem == null ? null : certificateChainPem.clone(); }

  /** A copy of the PEM PKCS#8 private key, or null. */
  public byte[] privateKeyPem() { return privateKeyPem == null ? null : privateKeyPem.clone(); }

  /** A copy of the PEM certificates this side trusts, or null for the JDK's default roots. */
  public byte[] trustedCertificatesPem() { return trustedCertificatesPem == null ? null : trustedCertificatesPem.clone(); }

  /** The server name to verify instead of the authority's host, or null. */
  public String serverNameOverride() { return serverNameOverride; }

  @Override
  public String toString() {
    return "TlsSettings{chain=" + (certificateChainPem != null) + ", key=" + (privateKeyPem != null)
        + ", trust=" + (trustedCertificatesPem == null ? "default" : "custom")
        + ", serverNameOverride=" + serverNameOverride + ", hash=" + Arrays.hashCode(certificateChainPem) + '}';
  }
}
