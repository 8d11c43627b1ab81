package dev.tern.bench.stack;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate (EC P-256) and its key in PEM, made for one benchmark run: the server
 * presents it, the client trusts exactly it and expects the name {@link #SERVER_NAME}.
 *
 * @param certificatePem the certificate chain (one certificate)
 * @param privateKeyPem the PKCS#8 private key
 */
public record TlsMaterial(byte[] certificatePem, byte[] privateKeyPem) {
  /** The name in the certificate, which clients expect instead of the server's address. */
  public static final String SERVER_NAME = "bench.tern.test";

  /** Makes a fresh certificate valid for a day. */
  public static TlsMaterial generate() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair kp = g.generateKeyPair();
      X500Name subject = new X500Name("CN=" + SERVER_NAME);
      Instant now = Instant.now();
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, BigInteger.valueOf(now.toEpochMilli()),
          Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, kp.getPublic());
      b.addExtension(Extension.subjectAlternativeName, false,
          new GeneralNames(new GeneralName(GeneralName.dNSName, SERVER_NAME)));
      X509CertificateHolder cert = b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate()));
      StringWriter certPem = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(certPem)) {
        w.writeObject(cert);
      }
      String keyPem = "-----BEGIN PRIVATE KEY-----\n"
          + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(kp.getPrivate().getEncoded())
          + "\n-----END PRIVATE KEY-----\n";
      return new TlsMaterial(certPem.toString().getBytes(StandardCharsets.US_ASCII),
          keyPem.getBytes(StandardCharsets.US_ASCII));
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException("cannot make the benchmark's self-signed certificate", e);
    }
  }

  /** Writes {@code <dir>/bench-cert.pem} and {@code <dir>/bench-key.pem}. */
  public void writeTo(Path dir) {
    try {
      Files.write(dir.resolve("bench-cert.pem"), certificatePem);
      Files.write(dir.resolve("bench-key.pem"), privateKeyPem);
    } catch (IOException e) {
      throw new UncheckedIOException("writing TLS material to " + dir, e);
    }
  }

  /** Reads what {@link #writeTo} wrote. */
  public static TlsMaterial readFrom(Path dir) {
    try {
      return new TlsMaterial(Files.readAllBytes(dir.resolve("bench-cert.pem")),
          Files.readAllBytes(dir.resolve("bench-key.pem")));
    } catch (IOException e) {
      throw new UncheckedIOException("reading TLS material from " + dir, e);
    }
  }
}
