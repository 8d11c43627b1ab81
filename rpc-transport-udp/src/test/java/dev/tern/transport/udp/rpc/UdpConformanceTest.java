package dev.tern.transport.udp.rpc;

import dev.tern.conformance.AbstractTransportConformanceTest;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The {@code udp} transport runs the whole conformance suite over loopback, encrypted, the
 * server authenticated by a key the client pinned.
 */
class UdpConformanceTest extends AbstractTransportConformanceTest {
  private static final byte[] SERVER_KEY = UdpTransportOptions.newServerKey();
  private static final byte[] PIN = UdpTransportOptions.publicKeyOf(SERVER_KEY);

  @Override
  protected TransportProvider transportProvider() {
    return new UdpTransportProvider();
  }

  @Override
  protected SocketAddress newServerAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  @Override
  protected TransportOptions serverOptions() {
    return TransportOptions.defaults().with(UdpTransportOptions.SERVER_STATIC_KEY, SERVER_KEY);
  }

  @Override
  protected TransportOptions clientOptions() {
    return TransportOptions.defaults().with(UdpTransportOptions.PINNED_SERVER_KEY, PIN);
  }

  @Override
  protected TernServerBuilder configureServer(TernServerBuilder builder) {
    return builder.transportOption(UdpTransportOptions.SERVER_STATIC_KEY, SERVER_KEY);
  }

  @Override
  protected TernChannelBuilder configureChannel(TernChannelBuilder builder) {
    return builder.usePlaintext().transportOption(UdpTransportOptions.PINNED_SERVER_KEY, PIN);
  }

  @Override
  protected boolean carriesPriority() {
    return true;
  }
}
