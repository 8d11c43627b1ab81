package dev.tern.rpc;

import dev.tern.rpc.spi.TlsSettings;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * TLS for a Tern channel or server, on every transport: the certificate this side presents (its key
 * manager) and whom it trusts (its trust manager), in the shape of grpc-java's {@code
 * TlsChannelCredentials.newBuilder()}.
 *
 * <pre>{@code
 * // Server: PEM files (or a PKCS#12 / JKS KeyStore).
 * TernServerBuilder.forPort(8443)
 *     .tls(TernTls.newBuilder().keyManager(new File("cert.pem"), new File("key.pem")).build());
 * // Client: trust a private CA instead of the JDK's roots.
 * TernChannelBuilder.forTarget("api.example.com:8443")
 *     .tls(TernTls.newBuilder().trustManager(new File("ca.pem")).build());
 * }</pre>
 *
 * <p>Private keys may be PKCS#8 ({@code BEGIN PRIVATE KEY}), SEC1 ({@code BEGIN EC PRIVATE KEY}) or
 * PKCS#1 ({@code BEGIN RSA PRIVATE KEY}), unencrypted. A server given whom to trust requires a
 * client certificate (mutual TLS). grpc-java credentials are read by {@link
 * TernChannelBuilder#forTarget(String, io.grpc.ChannelCredentials)} and {@link
 * TernServerBuilder#forPort(int, io.grpc.ServerCredentials)}.
 */
public final class TernTls {
  private final TlsSettings settings;

  private TernTls(TlsSettings settings) {
    this.settings = settings;
  }

  /**
   * A builder with no key and the JDK's default roots.
   *
   * @return a new builder
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** The settings transports are handed. */
  TlsSettings settings() {
    return settings;
  }

  @Override
  public String toString() {
    return "TernTls" + settings;
  }

  /** Collects a key and a trust source; each setter replaces the earlier one of its kind. */
  public static final class Builder {
    private byte[] chainPem;
    private byte[] keyPem;
    private KeyManager keyManager;
    private byte[] trustPem;
    private TrustManager trustManager;
    private String serverNameOverride;

    private Builder() {}

    /**
     * Presents the PEM certificate chain and unencrypted private key in these files, read now.
     *
     * @param certChain the PEM certificate chain, this side's own certificate first; not null
     * @param privateKey the PEM private key of the first certificate; not null
     * @return this builder
     * @throws NullPointerException if either file is null
     * @throws UncheckedIOException naming the file that cannot be read
     * @throws IllegalArgumentException if either file is not readable PEM, naming which
     */
    public Builder keyManager(File certChain, File privateKey) {
      return keyManager(read(certChain, "certChain"), read(privateKey, "privateKey"));
    }

    /**
     * Presents the PEM certificate chain and unencrypted private key read from these streams
     * (read now; the caller closes them).
     *
     * @param certChain the PEM certificate chain, this side's own certificate first; not null
     * @param privateKey the PEM private key of the first certificate; not null
     * @return this builder
     * @throws NullPointerException if either stream is null
     * @throws UncheckedIOException if a stream cannot be read
     * @throws IllegalArgumentException if either stream is not readable PEM, naming which
     */
    public Builder keyManager(InputStream certChain, InputStream privateKey) {
      return keyManager(read(certChain, "certChain"), read(privateKey, "privateKey"));
    }

    private Builder keyManager(byte[] chain, byte[] key) {
      TlsSettings.forServer(chain, key); // refuses unreadable PEM now, naming the parameter
      chainPem = chain;
      keyPem = key;
      keyManager = null;
      return this;
    }

    /**
     * Presents the key entry of {@code keyStore} (PKCS#12 or JKS, loaded by the caller) protected
     * by {@code password}.
     *
     * @param keyStore a loaded key store holding a private key entry with its chain; not null
     * @param password the key entry's password (null for none)
     * @return this builder
     * @throws NullPointerException if {@code keyStore} is null
     * @throws IllegalArgumentException if the store is not loaded, holds no usable key entry or the
     *     password is wrong
     */
    public Builder keyManager(KeyStore keyStore, char[] password) {
      Objects.requireNonNull(keyStore, "keyStore");
      try {
        List<String> aliases = Collections.list(keyStore.aliases());
        if (aliases.stream().noneMatch(a -> isKeyEntry(keyStore, a))) {
          throw new IllegalArgumentException("keyStore (" + keyStore.getType() + ") holds no private key entry,"
              + " only " + aliases + "; import the key with its certificate chain (keytool -importkeystore)");
        }
        KeyManagerFactory f = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        f.init(keyStore, password);
        return keyManager(x509(f.getKeyManagers(), X509KeyManager.class, "keyStore"));
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException("keyStore (" + keyStore.getType() + ") cannot be read with the password"
            + " given: " + e.getMessage(), e);
      }
    }

    private static boolean isKeyEntry(KeyStore store, String alias) {
      try {
        return store.isKeyEntry(alias);
      } catch (KeyStoreException e) {
        throw new IllegalArgumentException("keyStore is not loaded: " + e.getMessage(), e);
      }
    }

    /**
     * Presents the certificate {@code manager} chooses (an {@link X509KeyManager}), replacing PEM
     * set earlier.
     *
     * @param manager the key manager; not null
     * @return this builder
     * @throws NullPointerException if {@code manager} is null
     */
    public Builder keyManager(KeyManager manager) {
      keyManager = Objects.requireNonNull(manager, "manager");
      chainPem = null;
      keyPem = null;
      return this;
    }

    /**
     * Trusts only the PEM certificates in {@code trustedCertificates} (a CA, or the peer's own),
     * read now, instead of the JDK's roots.
     *
     * @param trustedCertificates a PEM file of one or more certificates; not null
     * @return this builder
     * @throws NullPointerException if {@code trustedCertificates} is null
     * @throws UncheckedIOException if the file cannot be read
     * @throws IllegalArgumentException if the file holds no readable PEM certificate
     */
    public Builder trustManager(File trustedCertificates) {
      return trustPem(read(trustedCertificates, "trustedCertificates"));
    }

    /**
     * Trusts only the PEM certificates read from {@code trustedCertificates} (read now; the caller
     * closes it), instead of the JDK's roots.
     *
     * @param trustedCertificates a stream of one or more PEM certificates; not null
     * @return this builder
     * @throws NullPointerException if {@code trustedCertificates} is null
     * @throws UncheckedIOException if the stream cannot be read
     * @throws IllegalArgumentException if the stream holds no readable PEM certificate
     */
    public Builder trustManager(InputStream trustedCertificates) {
      return trustPem(read(trustedCertificates, "trustedCertificates"));
    }

    private Builder trustPem(byte[] pem) {
      TlsSettings.forClient(pem); // refuses unreadable PEM now
      trustPem = pem;
      trustManager = null;
      return this;
    }

    /**
     * Trusts the certificate entries of {@code trustStore} (PKCS#12 or JKS, loaded by the caller)
     * instead of the JDK's roots.
     *
     * @param trustStore a loaded key store of trusted certificates; not null
     * @return this builder
     * @throws NullPointerException if {@code trustStore} is null
     * @throws IllegalArgumentException if the store is not loaded or yields no trust manager
     */
    public Builder trustManager(KeyStore trustStore) {
      Objects.requireNonNull(trustStore, "trustStore");
      try {
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(trustStore);
        return trustManager(x509(f.getTrustManagers(), X509TrustManager.class, "trustStore"));
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException("trustStore (" + trustStore.getType() + ") cannot be read: "
            + e.getMessage(), e);
      }
    }

    /**
     * Verifies the peer with {@code manager} (an {@link X509TrustManager}), replacing PEM set
     * earlier.
     *
     * @param manager the trust manager; not null
     * @return this builder
     * @throws NullPointerException if {@code manager} is null
     */
    public Builder trustManager(TrustManager manager) {
      trustManager = Objects.requireNonNull(manager, "manager");
      trustPem = null;
      return this;
    }

    /**
     * A client expects the server's certificate to be for {@code name}, not the target's host
     * (a server ignores it).
     *
     * @param name the host name to verify; not null
     * @return this builder
     * @throws NullPointerException if {@code name} is null
     */
    public Builder serverNameOverride(String name) {
      serverNameOverride = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * The settings; the builder may go on to build others.
     *
     * @return TLS settings with this builder's key, trust and server name
     */
    public TernTls build() {
      TlsSettings s = TlsSettings.forClient(trustPem);
      if (trustManager != null) {
        s = s.withTrustManager(trustManager);
      }
      if (keyPem != null) {
        s = s.withKeyCertificate(chainPem, keyPem);
      } else if (keyManager != null) {
        s = s.withKeyManager(keyManager);
      }
      if (serverNameOverride != null) {
        s = s.withServerNameOverride(serverNameOverride);
      }
      return new TernTls(s);
    }
  }

  static <T> T x509(Object[] managers, Class<T> type, String what) {
    for (Object m : managers) {
      if (type.isInstance(m)) {
        return type.cast(m);
      }
    }
    throw new IllegalArgumentException(what + " yields no " + type.getSimpleName() + " (it holds no usable entry)");
  }

  private static byte[] read(File file, String parameter) {
    Objects.requireNonNull(file, parameter);
    try {
      return Files.readAllBytes(file.toPath());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + parameter + " file " + file + ": " + e.getMessage(), e);
    }
  }

  private static byte[] read(InputStream in, String parameter) {
    Objects.requireNonNull(in, parameter);
    try {
      return Marshalling.readRest(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + parameter + ": " + e.getMessage(), e);
    }
  }
}
