package dev.tern.transport.quic;

import dev.tern.conformance.AbstractTransportConformanceTest;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** The QUIC transport runs the whole conformance suite over loopback with TLS 1.3. */
class QuicConformanceTest extends AbstractTransportConformanceTest {
  @Override
  protected TransportProvider transportProvider() {
    return new QuicTransportProvider();
  }

  @Override
  protected SocketAddress newServerAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  @Override
  protected TransportOptions serverOptions() {
    return TransportOptions.defaults().with(TransportOptions.TLS, TestCertificates.server());
  }

  @Override
  protected TransportOptions clientOptions() {
    return TransportOptions.defaults().with(TransportOptions.TLS, TestCertificates.client());
  }

  @Override
  protected String authorityFor(SocketAddress address) {
    return "localhost:" + ((InetSocketAddress) address).getPort();
  }

  @Override
  protected TernServerBuilder configureServer(TernServerBuilder builder) {
    return builder.tls(TestCertificates.server());
  }

  @Override
  protected TernChannelBuilder configureChannel(TernChannelBuilder builder) {
    return builder.tls(TestCertificates.client());
  }

  @Override
  protected boolean carriesPriority() {
    return true;
  }

  @Override
  protected boolean carriesEarlyDataFlag() {
    return true;
  }
}
