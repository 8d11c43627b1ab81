package com.example.greeter;

import dev.tern.rpc.spi.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A development certificate for localhost, made with the JDK's keytool exactly as
 * docs/getting-started.md shows.
 */
final class DevCertificate {
  static final String PASSWORD = "changeit";
  final Path keyStore;
  final byte[] certificatePem;
  final byte[] privateKeyPem;

  private DevCertificate(Path keyStore, byte[] certificatePem, byte[] privateKeyPem) {
    this.keyStore = keyStore;
    this.certificatePem = certificatePem;
    this.privateKeyPem = privateKeyPem;
  }

  static DevCertificate create(Path dir) throws IOException, InterruptedException, GeneralSecurityException {
    Path p12 = dir.resolve("server.p12");
    Path pem = dir.resolve("server.pem");
    keytool(dir, "-genkeypair", "-alias", "greeter", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1", "-validity", "365",
        "-keystore", p12.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
    keytool(dir, "-exportcert", "-rfc", "-alias", "greeter", "-keystore", p12.toString(),
        "-storepass", PASSWORD, "-file", pem.toString());
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p12)) {
      store.load(in, PASSWORD.toCharArray());
    }
    Key key = store.getKey("greeter", PASSWORD.toCharArray());
    String keyPem = "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(key.getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
    return new DevCertificate(p12, Files.readAllBytes(pem), keyPem.getBytes(StandardCharsets.US_ASCII));
  }

  TlsSettings server() {
    return TlsSettings.forServer(certificatePem, privateKeyPem);
  }

  TlsSettings client() {
    return TlsSettings.forClient(certificatePem);
  }

  private static void keytool(Path dir, String... args) throws IOException, InterruptedException {
    Path tool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command = new java.util.ArrayList<>();
    command.add(tool.toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
    }
  }
}
