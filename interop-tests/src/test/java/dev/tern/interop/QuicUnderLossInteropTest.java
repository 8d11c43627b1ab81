package dev.tern.interop;

import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.quic.QuicTransportOptions;
import dev.tern.transport.quic.QuicTransportProvider;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Timeout;

/**
 * A Tern client and a Tern server run every interop case over QUIC while the server's UDP socket
 * drops 4% of the datagrams in each direction and reorders 1% (a fixed seed), so recovery by
 * quiche (RFC 9002) is exercised under every call shape gRPC defines.
 */
@Timeout(60)
class QuicUnderLossInteropTest extends UnderLossInteropCases {
  /** Loss and reordering applied to every datagram the server receives and sends. */
  static final DatagramImpairment IMPAIRMENT = DatagramImpairment.of(0.04, 0, 0.01, 20261129L);

  private static final TestCertificates CERTS = TestCertificates.generate();

  @Override
  String transport() {
    return QuicTransportProvider.NAME;
  }

  @Override
  Server startServer() throws Exception {
    QuicTransportProvider lossyServer = new QuicTransportProvider(
        TransportOptions.defaults().with(QuicTransportOptions.IMPAIRMENT, IMPAIRMENT));
    return TernServerBuilder.create().addTransportProvider(lossyServer)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .addService(TernTestService.definition(scheduler)).tls(CERTS.server()).build().start();
  }

  @Override
  ManagedChannel channel(Server server) {
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    return TernChannelBuilder.forAddress("localhost", port).transports(QuicTransportProvider.NAME)
        .tls(CERTS.client()).build();
  }
}
