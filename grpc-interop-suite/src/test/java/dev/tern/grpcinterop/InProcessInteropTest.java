package dev.tern.grpcinterop;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.inprocess.InProcessAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.ClassRule;
import org.junit.rules.Timeout;

/** grpc-java's interop cases over Tern's in-process transport. */
public class InProcessInteropTest extends TernInteropTest {
  /** Every case of the class together; each case also has the base class's own 90 s limit. */
  @ClassRule public static final Timeout CLASS_TIMEOUT = Timeout.seconds(300);

  private static final AtomicInteger SERVERS = new AtomicInteger();

  @Override
  protected SocketAddress listenAddress() {
    return new InProcessAddress("grpc-interop-" + SERVERS.incrementAndGet());
  }

  @Override
  protected String transport() {
    return "inprocess";
  }

  @Override
  protected void secure(TernServerBuilder builder) {}

  @Override
  protected TernChannelBuilder channelTo(SocketAddress address) {
    return TernChannelBuilder.forAddress(address).usePlaintext();
  }
}
