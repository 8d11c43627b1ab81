package dev.tern.interop;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import dev.tern.transport.udp.rpc.UdpTransportProvider;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Timeout;

/**
 * A Tern client and a Tern server run every interop case over Tern's own {@code udp} transport
 * while the server's socket drops 2% of the datagrams in each direction, reorders 1% and
 * duplicates 0.5% (a fixed seed), so the protocol's recovery (docs/protocol.md §8) is exercised
 * under every call shape gRPC defines.
 */
@Timeout(60)
class UdpUnderLossInteropTest extends UnderLossInteropCases {
  /** Loss, duplicates and reordering applied to every datagram the server receives and sends. */
  static final DatagramImpairment IMPAIRMENT = DatagramImpairment.of(0.02, 0.005, 0.01, 20261207L);

  private static final byte[] SERVER_KEY = UdpTransportOptions.newServerKey();

  @Override
  String transport() {
    return UdpTransportProvider.NAME;
  }

  @Override
  Server startServer() throws Exception {
    return TernServerBuilder.create().addTransportProvider(new UdpTransportProvider())
        .listen(UdpTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, SERVER_KEY)
        .transportOption(UdpTransportOptions.IMPAIRMENT, IMPAIRMENT)
        .addService(TernTestService.definition(scheduler)).build().start();
  }

  @Override
  ManagedChannel channel(Server server) {
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    return TernChannelBuilder.forAddress("localhost", port).transports(UdpTransportProvider.NAME)
        .usePlaintext()
        .transportOption(UdpTransportOptions.PINNED_SERVER_KEY,
            UdpTransportOptions.publicKeyOf(SERVER_KEY)).build();
  }
}
