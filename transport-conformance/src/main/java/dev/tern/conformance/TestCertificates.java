package dev.tern.conformance;

import dev.tern.rpc.spi.TlsSettings;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/** A self-signed certificate for {@code localhost} and {@code 127.0.0.1}, made at test time. */
public final class TestCertificates {
  private final byte[] certificatePem;
  private final byte[] privateKeyPem;
  private final byte[] sec1PrivateKeyPem;
  private final PrivateKey privateKey;
  private final X509Certificate certificate;

  private TestCertificates(byte[] certificatePem, byte[] privateKeyPem, byte[] sec1PrivateKeyPem,
      PrivateKey privateKey, X509Certificate certificate) {
    this.certificatePem = certificatePem;
    this.privateKeyPem = privateKeyPem;
    this.sec1PrivateKeyPem = sec1PrivateKeyPem;
    this.privateKey = privateKey;
    this.certificate = certificate;
  }

  /** Generates a fresh EC P-256 key and a certificate valid for one day. */
  public static TestCertificates generate() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(256, new SecureRandom());
      KeyPair keys = generator.generateKeyPair();
      X500Name name = new X500Name("CN=localhost");
      Instant now = Instant.now();
      JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name,
          BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minus(Duration.ofHours(1))),
          Date.from(now.plus(Duration.ofDays(1))), name, keys.getPublic());
      builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
          new GeneralName(GeneralName.dNSName, "localhost"),
          new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      X509CertificateHolder holder =
          builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()));
      X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(holder);
      return new TestCertificates(pem(holder), pem(new JcaPKCS8Generator(keys.getPrivate(), null)),
          sec1(keys.getPrivate()), keys.getPrivate(), certificate);
    } catch (Exception e) {
      throw new IllegalStateException("cannot generate a test certificate", e);
    }
  }

  /** The key as OpenSSL writes it: RFC 5915 ECPrivateKey with the named curve in parameters [0]. */
  private static byte[] sec1(PrivateKey key) throws Exception {
    PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
    ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
    ECPrivateKey sec1 = new ECPrivateKey(256, inner.getKey(), inner.getPublicKey(),
        info.getPrivateKeyAlgorithm().getParameters());
    return pem(new PemObject("EC PRIVATE KEY", sec1.getEncoded()));
  }

  private static byte[] pem(Object object) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** The certificate, PEM. */
  public byte[] certificatePem() {
    return certificatePem.clone();
  }

  /** The PKCS#8 private key, PEM. */
  public byte[] privateKeyPem() {
    return privateKeyPem.clone();
  }

  /** The same private key in SEC1 form ({@code BEGIN EC PRIVATE KEY}), as OpenSSL's {@code ecparam -genkey} writes it. */
  public byte[] sec1PrivateKeyPem() {
    return sec1PrivateKeyPem.clone();
  }

  /**
   * A new key store of {@code type} ({@code "PKCS12"} or {@code "JKS"}) holding the key and
   * certificate under {@code "server"}, protected by {@code password}.
   */
  public KeyStore keyStore(String type, char[] password) {
    try {
      KeyStore store = KeyStore.getInstance(type);
      store.load(null, null);
      store.setKeyEntry("server", privateKey, password, new Certificate[] {certificate});
      return store;
    } catch (Exception e) {
      throw new IllegalStateException("cannot make a " + type + " key store", e);
    }
  }

  /** A new key store of {@code type} holding only the certificate, as a trusted entry. */
  public KeyStore trustStore(String type) {
    try {
      KeyStore store = KeyStore.getInstance(type);
      store.load(null, null);
      store.setCertificateEntry("trusted", certificate);
      return store;
    } catch (Exception e) {
      throw new IllegalStateException("cannot make a " + type + " trust store", e);
    }
  }

  /** Server settings presenting this certificate. */
  public TlsSettings server() {
    return TlsSettings.forServer(certificatePem, privateKeyPem);
  }

  /** Client settings trusting only this certificate. */
  public TlsSettings client() {
    return TlsSettings.forClient(certificatePem);
  }
}
