package dev.tern.transport.tcp;

import dev.tern.conformance.AbstractTransportConformanceTest;
import dev.tern.rpc.spi.TransportProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** The TCP transport, in plaintext, passes the conformance suite. */
class TcpConformanceTest extends AbstractTransportConformanceTest {
  @Override
  protected TransportProvider transportProvider() {
    return new TcpTransportProvider();
  }

  @Override
  protected SocketAddress newServerAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
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
