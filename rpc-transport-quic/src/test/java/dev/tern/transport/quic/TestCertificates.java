package dev.tern.transport.quic;

import dev.tern.rpc.spi.TlsSettings;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A self-signed EC P-256 certificate for {@code localhost} and {@code 127.0.0.1}, made once per JVM. */
final class TestCertificates {
  static final String CERT_PEM;
  static final String KEY_PEM;

  static {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair kp = g.generateKeyPair();
      X500Name name = new X500Name("CN=localhost");
      long now = System.currentTimeMillis();
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now), new Date(now - 86_400_000L),
          new Date(now + 7 * 86_400_000L), name, kp.getPublic());
      b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
          new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
      X509CertificateHolder holder = b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate()));
      StringWriter cert = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(cert)) {
        w.writeObject(holder);
      }
      StringWriter key = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(key)) {
        w.writeObject(new JcaPKCS8Generator(kp.getPrivate(), null));
      }
      CERT_PEM = cert.toString();
      KEY_PEM = key.toString();
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private TestCertificates() {}

  static TlsSettings server() {
    return TlsSettings.forServer(CERT_PEM.getBytes(StandardCharsets.US_ASCII), KEY_PEM.getBytes(StandardCharsets.US_ASCII));
  }

  static TlsSettings client() {
    return TlsSettings.forClient(CERT_PEM.getBytes(StandardCharsets.US_ASCII));
  }
}
