package dev.tern.transport.okhttp;

import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;

/** The OkHttp transport over TLS (ALPN h2, a certificate made at test time) passes the conformance suite. */
class OkHttpTlsConformanceTest extends OkHttpConformanceBase {
  private static final TestCertificates CERTS = TestCertificates.generate();

  @Override
  protected TransportOptions serverOptions() {
    return TransportOptions.defaults().with(TransportOptions.TLS, CERTS.server());
  }

  @Override
  protected TransportOptions clientOptions() {
    return TransportOptions.defaults().with(TransportOptions.TLS, CERTS.client());
  }

  @Override
  protected TernServerBuilder configureServer(TernServerBuilder builder) {
    return builder.tls(CERTS.server());
  }

  @Override
  protected TernChannelBuilder configureChannel(TernChannelBuilder builder) {
    return builder.tls(CERTS.client());
  }
}
