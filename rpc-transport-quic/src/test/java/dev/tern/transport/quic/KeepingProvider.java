package dev.tern.transport.quic;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Attributes;
import io.grpc.Status;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real {@code quic} provider, keeping the last server transport it made for the test to
 * inspect, and counting the server's connections from the events it reports to the call layer:
 * half-open ones (created, neither ready nor terminated) now and at most, and all at most.
 */
final class KeepingProvider implements TransportProvider {
  private final QuicTransportProvider inner = new QuicTransportProvider();
  volatile QuicServerTransport server;
  final AtomicInteger halfOpen = new AtomicInteger();
  final AtomicInteger peakHalfOpen = new AtomicInteger();
  final AtomicInteger open = new AtomicInteger();
  final AtomicInteger peakOpen = new AtomicInteger();
  final AtomicInteger created = new AtomicInteger();

  @Override public String name() { return inner.name(); }

  @Override public boolean isAvailable() { return inner.isAvailable(); }

  @Override public String unavailableReason() { return inner.unavailableReason(); }

  @Override public VersionHandshake versionHandshake() { return inner.versionHandshake(); }

  @Override public boolean isDatagram() { return inner.isDatagram(); }

  @Override public boolean supportsEarlyData() { return inner.supportsEarlyData(); }

  @Override public boolean requiresTls() { return inner.requiresTls(); }

  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
    return inner.newClientTransport(address, authority, options);
  }

  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    QuicServerTransport t = (QuicServerTransport) inner.newServerTransport(bindAddress, options);
    server = t;
    return new ServerTransport() {
      @Override
      public void start(ServerTransportListener listener) throws IOException {
        t.start(new Counting(listener));
      }

      @Override public SocketAddress listenAddress() { return t.listenAddress(); }

      @Override public void shutdown() { t.shutdown(); }

      @Override public void shutdownNow(Status status) { t.shutdownNow(status); }
    };
  }

  private final class Counting implements ServerTransportListener {
    private final ServerTransportListener next;

    Counting(ServerTransportListener next) {
      this.next = next;
    }

    @Override
    public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
      return next.streamCreated(stream, headers);
    }

    @Override
    public void serverTerminated() {
      next.serverTerminated();
    }

    @Override
    public ConnectionListener connectionCreated(ConnectionHandle connection) {
      ConnectionListener l = next.connectionCreated(connection);
      created.incrementAndGet();
      peakHalfOpen.accumulateAndGet(halfOpen.incrementAndGet(), Math::max);
      peakOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
      return new ConnectionListener() {
        private boolean handshaking = true;

        @Override
        public synchronized Attributes connectionReady(Attributes attributes) {
          if (handshaking) {
            handshaking = false;
            halfOpen.decrementAndGet();
          }
          return l.connectionReady(attributes);
        }

        @Override
        public synchronized void connectionTerminated() {
          if (handshaking) {
            handshaking = false;
            halfOpen.decrementAndGet();
          }
          open.decrementAndGet();
          l.connectionTerminated();
        }
      };
    }
  }
}
