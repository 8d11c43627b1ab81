package dev.tern.transport.okhttp;

import dev.tern.conformance.TestCertificates;
import dev.tern.conformance.AbstractTransportConformanceTest;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** The OkHttp transport over TLS (ALPN h2, a certificate made at test time) passes the conformance suite. */
class OkHttpTlsConformanceTest extends AbstractTransportConformanceTest {
  private static final TestCertificates CERTS = TestCertificates.generate();

  @Override
  protected TransportProvider transportProvider() {
    return new OkHttpTransportProvider();
  }

  @Override
  protected SocketAddress newServerAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

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

  @Override
  protected boolean isAllowedThread(Thread thread) {
    return OkHttpThreads.isShared(thread);
  }
}
