package dev.tern.rpc.inprocess;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.SerializingExecutor;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Attributes;
import io.grpc.SecurityLevel;
import io.grpc.Status;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** An in-process server: registered under its name while it accepts connections. */
final class InProcessServerTransport implements ServerTransport {
  private static final ConcurrentMap<InProcessAddress, InProcessServerTransport> REGISTRY =
      new ConcurrentHashMap<>();

  private final InProcessAddress address;
  private final TransportOptions options;
  private final SerializingExecutor events = new SerializingExecutor(InProcessExecutor.get());
  private final Set<InProcessStream> streams = ConcurrentHashMap.newKeySet();
  private final Set<InProcessClientTransport> clients = ConcurrentHashMap.newKeySet();
  /** Each connected client's connection listener, until the client transport has terminated. */
  private final ConcurrentMap<InProcessClientTransport, ServerTransportListener.ConnectionListener> connections =
      new ConcurrentHashMap<>();
  private volatile ServerTransportListener listener;
  private boolean shutdown;
  private boolean terminated;

  InProcessServerTransport(InProcessAddress address, TransportOptions options) {
    this.address = address;
    this.options = options;
  }

  static InProcessServerTransport lookup(InProcessAddress address) {
    return REGISTRY.get(address);
  }

  @Override
  public void start(ServerTransportListener listener) throws IOException {
    synchronized (this) {
      if (this.listener != null) {
        throw new IllegalStateException("already started");
      }
      if (REGISTRY.putIfAbsent(address, this) != null) {
        throw new IOException("in-process address " + address + " is already in use");
      }
      this.listener = listener;
    }
  }

  @Override
  public SocketAddress listenAddress() {
    return listener == null ? null : address;
  }

  TransportOptions options() {
    return options;
  }

  ServerTransportListener listener() {
    return listener;
  }

  synchronized boolean accept(InProcessClientTransport client) {
    if (shutdown) {
      return false;
    }
    clients.add(client);
    return true;
  }

  void clientGone(InProcessClientTransport client) {
    clients.remove(client);
  }

  /**
   * Reports {@code client}'s connection created and ready (an in-process connection has no
   * handshake), on the client's thread before its first stream can arrive.
   *
   * @return the attributes the server's listener gave the connection, for its streams
   */
  Attributes connected(InProcessClientTransport client) {
    ServerTransportListener.ConnectionListener l = listener.connectionCreated(client::shutdownNow);
    connections.put(client, l);
    ConnectionInfo info = ConnectionInfo.builder(client.transportName()).protocolVersion(client.protocolVersion())
        .localAddress(address).remoteAddress(client.localAddress()).build();
    Attributes attributes = l.connectionReady(ConnectionAttributes.of(info, SecurityLevel.NONE));
    if (client.isTerminated()) {
      disconnected(client); // terminated while it was being reported: it found nothing to end
    }
    return attributes;
  }

  /** {@code client} has terminated: its connection ends, once, after its streams' events. */
  void disconnected(InProcessClientTransport client) {
    ServerTransportListener.ConnectionListener l = connections.remove(client);
    if (l != null) {
      events.execute(l::connectionTerminated);
      maybeTerminate();
    }
  }

  synchronized boolean addStream(InProcessStream stream) {
    if (shutdown) {
      return false;
    }
    streams.add(stream);
    return true;
  }

  void streamClosed(InProcessStream stream) {
    streams.remove(stream);
    maybeTerminate();
  }

  @Override
  public void shutdown() {
    synchronized (this) {
      if (shutdown) {
        return;
      }
      shutdown = true;
    }
    REGISTRY.remove(address, this);
    for (InProcessClientTransport c : new ArrayList<>(clients)) {
      c.serverShutdown(Status.UNAVAILABLE.withDescription("in-process server " + address + " shut down"));
    }
    clients.clear();
    maybeTerminate();
  }

  @Override
  public void shutdownNow(Status status) {
    shutdown();
    List<InProcessStream> open = new ArrayList<>(streams);
    for (InProcessStream s : open) {
      s.abort(status, status);
    }
    maybeTerminate();
  }

  private void maybeTerminate() {
    synchronized (this) {
      if (!shutdown || terminated || !streams.isEmpty() || !connections.isEmpty() || listener == null) {
        return;
      }
      terminated = true;
    }
    events.execute(() -> listener.serverTerminated());
  }

  @Override
  public String toString() {
    return "InProcessServerTransport{" + address + '}';
  }
}
