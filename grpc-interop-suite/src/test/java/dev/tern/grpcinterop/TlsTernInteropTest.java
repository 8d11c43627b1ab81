package dev.tern.grpcinterop;

import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * grpc-java's interop cases over a Tern transport with TLS: a server certificate for localhost,
 * trusted by the channel, on loopback port 0. Subclasses name the transport.
 */
public abstract class TlsTernInteropTest extends TernInteropTest {
  private static final TestCertificates CERTS = TestCertificates.generate();

  @Override
  protected SocketAddress listenAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  @Override
  protected void secure(TernServerBuilder builder) {
    builder.tls(CERTS.server());
  }

  @Override
  protected TernChannelBuilder channelTo(SocketAddress address) {
    return TernChannelBuilder.forAddress("localhost", ((InetSocketAddress) address).getPort())
        .tls(CERTS.client());
  }
}
