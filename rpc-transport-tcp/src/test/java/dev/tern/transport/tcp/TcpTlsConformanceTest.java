package dev.tern.transport.tcp;

import dev.tern.conformance.TestCertificates;
import dev.tern.conformance.AbstractTransportConformanceTest;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** The TCP transport over TLS (ALPN h2, a certificate made at test time) passes the conformance suite. */
class TcpTlsConformanceTest extends AbstractTransportConformanceTest {
  private static final TestCertificates CERTS = TestCertificates.generate();

  @Override
  protected TransportProvider transportProvider() {
    return new TcpTransportProvider();
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
    return TcpThreads.isShared(thread);
  }

  /** grpc-netty's own: the HTTP/2 header decoder's error, on either side. */
  @Override
  protected io.grpc.Status.Code expectedMetadataRefusal() {
    return io.grpc.Status.Code.INTERNAL;
  }
}
