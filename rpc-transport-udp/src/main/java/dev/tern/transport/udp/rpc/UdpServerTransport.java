package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.nio.Pump;
import dev.tern.transport.udp.nio.UdpServerEndpoint;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A listening {@code udp} server: one {@link UdpServerEndpoint} (socket, loop thread, every
 * connection) and the calls on its connections. A graceful shutdown refuses new calls (the
 * client sees UNAVAILABLE: not processed, safe to retry), closes each connection once its calls
 * are done and acknowledged, and ends when the last one has left its closing period.
 */
final class UdpServerTransport implements ServerTransport, Pump {
  /** How long a graceful shutdown waits for an idle connection's last acknowledgements. */
  private static final long QUIESCE_GRACE_NS = 2_000_000_000L;

  private final InetSocketAddress bindAddress;
  final TransportOptions options;
  final int maxInboundMessageBytes;
  final int maxHeaderBytes;
  final int[] versions;
  final ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
  private final List<ServerConnection> connections = new ArrayList<>();
  private volatile UdpServerEndpoint endpoint;
  private volatile InetSocketAddress bound;
  private ServerTransportListener listener;
  private volatile boolean shutdown;
  private boolean endpointClosing;
  private long quiesceDeadlineNs = Long.MAX_VALUE;

  UdpServerTransport(InetSocketAddress bindAddress, TransportOptions options) {
    this.bindAddress = bindAddress;
    this.options = options;
    this.maxInboundMessageBytes = options.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE);
    this.maxHeaderBytes = Math.max(options.get(TransportOptions.MAX_INBOUND_METADATA_SIZE),
        1024);
    this.versions = options.get(TransportOptions.PROTOCOL_VERSIONS).clone();
  }

  @Override
  public void start(ServerTransportListener listener) throws IOException {
    if (this.listener != null) {
      throw new IllegalStateException("already started");
    }
    this.listener = Objects.requireNonNull(listener, "listener");
    ConnectionConfig config = UdpTransportOptions.server(options);
    UdpServerEndpoint e = UdpServerEndpoint.bind(bindAddress, config, c -> {
      ServerConnection sc = new ServerConnection(this, c);
      connections.add(sc);
      return sc;
    }, options.get(UdpTransportOptions.MAX_CONNECTIONS), "tern-udp-server " + bindAddress);
    bound = e.localAddress();
    endpoint = e;
    e.setPump(this);
    e.terminated().whenComplete((v, t) -> {
      // Connections the endpoint dropped without closing them (it failed, or was aborted) end now.
      for (ServerConnection c : new ArrayList<>(connections)) {
        c.reportTerminated();
      }
      listener.serverTerminated();
    });
  }

  /** Where {@code c}'s client is now; loop thread only. */
  SocketAddress remoteAddress(dev.tern.transport.udp.connection.Connection c) {
    UdpServerEndpoint e = endpoint;
    return e == null ? null : e.remoteAddress(c);
  }

  ServerTransportListener listener() {
    return listener;
  }

  boolean isShutdown() {
    return shutdown;
  }

  /** Runs {@code task} on the loop; false once the server has terminated. */
  boolean run(Runnable task) {
    UdpServerEndpoint e = endpoint;
    return e != null && e.tryExecute(task);
  }

  /** Runs {@code task} on the loop, or {@code otherwise} here once the server has terminated. */
  void runOr(Runnable task, Runnable otherwise) {
    if (!run(task)) {
      otherwise.run();
    }
  }

  void connectionClosed(ServerConnection c) {
    connections.remove(c);
  }

  @Override
  public SocketAddress listenAddress() {
    return bound;
  }

  @Override
  public void pump(long nowNs) {
    if (!shutdown || endpointClosing) {
      return;
    }
    boolean allIdle = true;
    for (int i = 0; i < connections.size(); i++) {
      ServerConnection c = connections.get(i);
      if (c.calls() > 0) {
        allIdle = false;
        quiesceDeadlineNs = Long.MAX_VALUE;
      }
    }
    if (!allIdle) {
      return;
    }
    if (quiesceDeadlineNs == Long.MAX_VALUE) {
      quiesceDeadlineNs = nowNs + QUIESCE_GRACE_NS;
    }
    boolean quiet = true;
    for (int i = 0; i < connections.size(); i++) {
      ServerConnection c = connections.get(i);
      if (c.connection.state() == ConnectionState.ESTABLISHED && !c.connection.isQuiescent()) {
        quiet = false;
      }
    }
    if (quiet || nowNs - quiesceDeadlineNs >= 0) {
      endpointClosing = true;
      endpoint.close(0, "server shut down");
    }
  }

  @Override
  public long nextDeadlineNs() {
    return shutdown && !endpointClosing ? quiesceDeadlineNs : Long.MAX_VALUE;
  }

  @Override
  public void shutdown() {
    shutdown = true;
    run(() -> pump(System.nanoTime()));
  }

  @Override
  public void shutdownNow(Status status) {
    shutdown = true;
    run(() -> {
      for (ServerConnection c : new ArrayList<>(connections)) {
        c.cancelAll(status);
      }
      endpointClosing = true;
      endpoint.close(0, "server shut down: " + status.getDescription());
    });
  }

  @Override
  public String toString() {
    return "UdpServerTransport{" + bound + '}';
  }
}
