package dev.tern.grpcinterop;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.ClassRule;
import org.junit.rules.Timeout;

/**
 * grpc-java's interop cases over Tern's own UDP transport: the server authenticated by its static
 * key, which the channel pins (docs/protocol.md); no TLS certificate is involved, so the channel is
 * built without TLS and the transport encrypts every packet itself.
 */
public class UdpInteropTest extends TernInteropTest {
  /** Every case of the class together; each case also has the base class's own 90 s limit. */
  @ClassRule public static final Timeout CLASS_TIMEOUT = Timeout.seconds(300);

  private static final byte[] SERVER_KEY = UdpTransportOptions.newServerKey();

  @Override
  protected String transport() {
    return "udp";
  }

  @Override
  protected SocketAddress listenAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  @Override
  protected void secure(TernServerBuilder builder) {
    builder.transportOption(UdpTransportOptions.SERVER_STATIC_KEY, SERVER_KEY);
  }

  @Override
  protected TernChannelBuilder channelTo(SocketAddress address) {
    return TernChannelBuilder.forAddress("127.0.0.1", ((InetSocketAddress) address).getPort()).usePlaintext()
        .transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(SERVER_KEY));
  }
}
