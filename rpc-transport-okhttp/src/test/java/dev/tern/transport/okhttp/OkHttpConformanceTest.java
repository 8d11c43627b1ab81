package dev.tern.transport.okhttp;

import dev.tern.conformance.AbstractTransportConformanceTest;
import dev.tern.rpc.spi.TransportProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** The OkHttp transport, in plaintext, passes the conformance suite. */
class OkHttpConformanceTest extends AbstractTransportConformanceTest {
  @Override
  protected TransportProvider transportProvider() {
    return new OkHttpTransportProvider();
  }

  @Override
  protected SocketAddress newServerAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  @Override
  protected boolean isAllowedThread(Thread thread) {
    return OkHttpThreads.isShared(thread);
  }
}
