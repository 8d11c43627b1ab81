package dev.tern.grpcinterop;

import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.ClassRule;
import org.junit.rules.Timeout;

/** grpc-java's interop cases over Tern's TCP transport with TLS (a certificate for localhost). */
public class TcpTlsInteropTest extends TernInteropTest {
  /** Every case of the class together; each case also has the base class's own 90 s limit. */
  @ClassRule public static final Timeout CLASS_TIMEOUT = Timeout.seconds(300);

  private static final TestCertificates CERTS = TestCertificates.generate();

  @Override
  protected SocketAddress listenAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  @Override
  protected String transport() {
    return "tcp";
  }

  @Override
  protected void secure(TernServerBuilder builder) {
    builder.tls(CERTS.server());
  }

  @Override
  protected TernChannelBuilder channelTo(SocketAddress address) {
    return TernChannelBuilder.forAddress("localhost", ((InetSocketAddress) address).getPort()).tls(CERTS.client());
  }
}
