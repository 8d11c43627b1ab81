package dev.tern.interop;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicInteger;

/** A real transport provider, found by name, that counts the client transports it made and ended. */
final class CountingProvider implements TransportProvider {
  private final TransportProvider delegate;
  final AtomicInteger created = new AtomicInteger();
  final AtomicInteger terminated = new AtomicInteger();

  CountingProvider(String name) {
    TransportProvider found = null;
    for (TransportProvider p : ServiceLoader.load(TransportProvider.class)) {
      if (p.name().equals(name)) {
        found = p;
      }
    }
    if (found == null) {
      throw new IllegalArgumentException("no transport named " + name + " on the class path");
    }
    delegate = found;
  }

  /** Transports made and not yet terminated. */
  int live() {
    return created.get() - terminated.get();
  }

  @Override public String name() { return delegate.name(); }

  @Override public boolean isAvailable() { return delegate.isAvailable(); }

  @Override public String unavailableReason() { return delegate.unavailableReason(); }

  @Override public VersionHandshake versionHandshake() { return delegate.versionHandshake(); }

  @Override public boolean isDatagram() { return delegate.isDatagram(); }

  @Override public boolean supportsEarlyData() { return delegate.supportsEarlyData(); }

  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    return delegate.newServerTransport(bindAddress, options);
  }

  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
    ClientTransport inner = delegate.newClientTransport(address, authority, options);
    created.incrementAndGet();
    return new ClientTransport() {
      @Override
      public void start(Listener listener) {
        inner.start(new Listener() {
          @Override public void transportReady(ConnectionInfo info) { listener.transportReady(info); }

          @Override public void transportShutdown(Status status) { listener.transportShutdown(status); }

          @Override
          public void transportTerminated() {
            terminated.incrementAndGet();
            listener.transportTerminated();
          }
        });
      }

      @Override
      public ClientStream newStream(RequestHeaders headers, ClientStreamListener listener) {
        return inner.newStream(headers, listener);
      }

      @Override public ConnectionInfo connectionInfo() { return inner.connectionInfo(); }

      @Override public void shutdown() { inner.shutdown(); }

      @Override public void shutdownNow(Status status) { inner.shutdownNow(status); }
    };
  }
}
