package dev.tern.transport.quic;

import dev.tern.rpc.spi.TlsSettings;

/** The QUIC tests' TLS material: one self-signed certificate per JVM, made by the conformance module. */
final class TestCertificates {
  private static final dev.tern.conformance.TestCertificates SHARED =
      dev.tern.conformance.TestCertificates.generate();

  private TestCertificates() {}

  /** The server's certificate chain and key. */
  static TlsSettings server() {
    return SHARED.server();
  }

  /** A client trusting only that certificate. */
  static TlsSettings client() {
    return SHARED.client();
  }
}
