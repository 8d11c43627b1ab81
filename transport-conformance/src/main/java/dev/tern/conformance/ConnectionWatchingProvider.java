package dev.tern.conformance;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport under its own name whose server reports, besides passing them on to the call
 * layer, the connection events it gives: when the first connection was created, how many were
 * shown ready, and when the first one terminated. For tests of what the call layer does with a
 * connection (its handshake timeout, say) on a real transport.
 */
public final class ConnectionWatchingProvider implements TransportProvider {
  private final TransportProvider inner;
  /** Completed when the server's first connection was created. */
  public final CompletableFuture<Void> firstCreated = new CompletableFuture<>();
  /** Completed when the server's first connection was reported terminated. */
  public final CompletableFuture<Void> firstTerminated = new CompletableFuture<>();
  /** How many connections were reported ready. */
  public final AtomicInteger readies = new AtomicInteger();
  private final AtomicInteger created = new AtomicInteger();

  /**
   * Watches {@code inner}'s server connections.
   *
   * @param inner the real transport
   */
  public ConnectionWatchingProvider(TransportProvider inner) {
    this.inner = inner;
  }

  @Override public String name() { return inner.name(); }

  @Override public boolean isAvailable() { return inner.isAvailable(); }

  @Override public String unavailableReason() { return inner.unavailableReason(); }

  @Override public VersionHandshake versionHandshake() { return inner.versionHandshake(); }

  @Override public boolean isDatagram() { return inner.isDatagram(); }

  @Override public boolean supportsEarlyData() { return inner.supportsEarlyData(); }

  @Override public boolean requiresTls() { return inner.requiresTls(); }

  @Override public String unusableReason(TransportOptions options) { return inner.unusableReason(options); }

  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
    return inner.newClientTransport(address, authority, options);
  }

  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    ServerTransport t = inner.newServerTransport(bindAddress, options);
    return new ServerTransport() {
      @Override
      public void start(ServerTransportListener listener) throws IOException {
        t.start(new Watching(listener));
      }

      @Override public SocketAddress listenAddress() { return t.listenAddress(); }

      @Override public void shutdown() { t.shutdown(); }

      @Override public void shutdownNow(Status status) { t.shutdownNow(status); }
    };
  }

  /** Passes everything on, noting the connection events. */
  private final class Watching implements ServerTransportListener {
    private final ServerTransportListener next;

    Watching(ServerTransportListener next) {
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
      boolean first = created.incrementAndGet() == 1;
      ConnectionListener l = next.connectionCreated(connection);
      if (first) {
        firstCreated.complete(null);
      }
      return new ConnectionListener() {
        @Override
        public Attributes connectionReady(Attributes attributes) {
          readies.incrementAndGet();
          return l.connectionReady(attributes);
        }

        @Override
        public void connectionTerminated() {
          l.connectionTerminated();
          if (first) {
            firstTerminated.complete(null);
          }
        }
      };
    }
  }
}
