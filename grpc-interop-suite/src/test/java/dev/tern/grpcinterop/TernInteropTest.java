package dev.tern.grpcinterop;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.ForwardingServerBuilder;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.testing.integration.AbstractInteropTest;
import java.net.SocketAddress;

/**
 * grpc-java's own interop cases ({@link AbstractInteropTest}) with a Tern server and a Tern
 * channel over one transport. Set up as grpc-java's own Netty subclass does: a small flow-control
 * window (65 KiB, not a power of two), 16 MiB messages, the test's census tracer on the server and
 * its census interceptor on the channel. A subclass names the transport and how to reach it; a case
 * its transport cannot pass yet is overridden there and ignored with the reason.
 */
public abstract class TernInteropTest extends AbstractInteropTest {
  private Server server;

  /** Where the server listens (port 0 on loopback, or an in-process name). */
  protected abstract SocketAddress listenAddress();

  /** The transport's name, as {@link dev.tern.rpc.spi.TransportProvider#name()}. */
  protected abstract String transport();

  /** Adds the transport's security to the server (TLS, or nothing). */
  protected abstract void secure(TernServerBuilder builder);

  /** A channel builder for the started server at {@code address}, secured as the server is. */
  protected abstract TernChannelBuilder channelTo(SocketAddress address);

  @Override
  protected ServerBuilder<?> getServerBuilder() {
    TernServerBuilder builder = TernServerBuilder.create().listen(transport(), listenAddress())
        .maxInboundMessageSize(MAX_MESSAGE_SIZE)
        .transportOption(TransportOptions.FLOW_CONTROL_WINDOW, TEST_FLOW_CONTROL_WINDOW)
        .addStreamTracerFactory(createCustomCensusTracerFactory());
    secure(builder);
    return new Capturing(builder);
  }

  @Override
  protected ManagedChannelBuilder<?> createChannelBuilder() {
    return channelTo(server.getListenSockets().get(0)).transports(transport())
        .maxInboundMessageSize(MAX_MESSAGE_SIZE)
        .transportOption(TransportOptions.FLOW_CONTROL_WINDOW, TEST_FLOW_CONTROL_WINDOW)
        .intercept(createCensusStatsClientInterceptor());
  }

  /** Keeps the server the base class builds, to point the channel at its bound port. */
  private final class Capturing extends ForwardingServerBuilder<Capturing> {
    private final TernServerBuilder delegate;

    Capturing(TernServerBuilder delegate) {
      this.delegate = delegate;
    }

    @Override
    protected ServerBuilder<?> delegate() {
      return delegate;
    }

    @Override
    public Server build() {
      server = delegate.build();
      return server;
    }
  }
}
