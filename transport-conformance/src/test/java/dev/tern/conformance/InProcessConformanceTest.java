package dev.tern.conformance;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.TransportProvider;
import java.net.SocketAddress;
import java.util.UUID;

/** The in-process transport passes the whole conformance suite. */
class InProcessConformanceTest extends AbstractTransportConformanceTest {
  @Override
  protected TransportProvider transportProvider() {
    return new InProcessTransportProvider();
  }

  @Override
  protected SocketAddress newServerAddress() {
    return new InProcessAddress("conformance-" + UUID.randomUUID());
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
