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

  /**
   * INTERNAL, as grpc-netty's on {@code tcp}: Netty's HTTP/3 codec rejects a header section over
   * the limit (the client: a HEADERS frame longer than allowed; the server:
   * the stream reset with H3_INTERNAL_ERROR).
   */
  @Override
  protected io.grpc.Status.Code expectedMetadataRefusal() {
    return io.grpc.Status.Code.INTERNAL;
  }

  /**
   * Not yet: Netty's HTTP/3 codec (4.2.18) enforces the limit, but as a connection error: a
   * HEADERS frame longer than the local SETTINGS_MAX_FIELD_SECTION_SIZE closes the whole QUIC
   * connection with H3_EXCESSIVE_LOAD, so the next call on the channel fails UNAVAILABLE (and
   * calls sharing the connection fail with it). A per-stream refusal needs Tern to check the size
   * itself ahead of the codec.
   */
  @Override
  protected boolean metadataRefusalKeepsTheConnection() {
    return false;
  }
}
