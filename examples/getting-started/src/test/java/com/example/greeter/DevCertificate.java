package com.example.greeter;

import dev.tern.rpc.TernTls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A development certificate for localhost, made with the JDK's keytool exactly as
 * docs/getting-started.md shows.
 */
final class DevCertificate {
  static final String PASSWORD = "changeit";
  final Path keyStore;
  final Path certificate;

  private DevCertificate(Path keyStore, Path certificate) {
    this.keyStore = keyStore;
    this.certificate = certificate;
  }

  static DevCertificate create(Path dir) throws IOException, InterruptedException {
    Path p12 = dir.resolve("server.p12");
    Path pem = dir.resolve("server.pem");
    keytool(dir, "-genkeypair", "-alias", "greeter", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1", "-validity", "365",
        "-keystore", p12.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
    keytool(dir, "-exportcert", "-rfc", "-alias", "greeter", "-keystore", p12.toString(),
        "-storepass", PASSWORD, "-file", pem.toString());
    return new DevCertificate(p12, pem);
  }

  TernTls server() throws IOException, GeneralSecurityException {
    return GreeterServer.serverTls(keyStore, PASSWORD.toCharArray());
  }

  TernTls client() {
    return TernTls.newBuilder().trustManager(certificate.toFile()).build();
  }

  private static void keytool(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
    }
  }
}
