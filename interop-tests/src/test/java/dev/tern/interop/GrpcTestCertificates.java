package dev.tern.interop;

import dev.tern.rpc.spi.TlsSettings;
import java.io.IOException;
import java.io.InputStream;

/**
 * grpc's published test certificates (from {@code io.grpc:grpc-testing}), which the stock interop
 * peers use when TLS is on: a CA and a server certificate for {@code *.test.google.fr}.
 */
final class GrpcTestCertificates {
  /** The name the stock client expects by default, covered by the server certificate. */
  static final String SERVER_NAME = "foo.test.google.fr";

  private GrpcTestCertificates() {}

  private static byte[] load(String name) {
    try (InputStream in = GrpcTestCertificates.class.getResourceAsStream("/certs/" + name)) {
      if (in == null) {
        throw new IllegalStateException("certs/" + name + " is not on the class path (io.grpc:grpc-testing)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read certs/" + name, e);
    }
  }

  /** A Tern server presenting grpc's test server certificate. */
  static TlsSettings server() {
    return TlsSettings.forServer(load("server1.pem"), load("server1.key"));
  }

  /** A Tern client trusting grpc's test CA and expecting {@link #SERVER_NAME}. */
  static TlsSettings client() {
    return TlsSettings.forClient(load("ca.pem")).withServerNameOverride(SERVER_NAME);
  }
}
