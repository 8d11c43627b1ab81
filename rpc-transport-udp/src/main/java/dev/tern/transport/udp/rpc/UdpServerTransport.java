package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.ConnectionConfig;
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
import java.util.concurrent.CompletableFuture;

/**
 * A listening {@code udp} server: one {@link UdpServerEndpoint} (socket, loop thread, every
 * connection) and the calls on its connections. Each connection carries out the server's
 * keep-alive, idle and age limits ({@link ServerConnection}, docs/protocol.md §10.7). A graceful
 * shutdown drains every connection: new calls are refused (the client sees UNAVAILABLE: not
 * processed, safe to retry), each connection closes once its calls are done and acknowledged, and
 * the server ends when the last one has left its closing period.
 *
 * <p>It reports to the {@link TransportOptions#EVENTS} it was given: its endpoint the bytes, the
 * packets its connections declared lost and the datagrams and connections it refused ({@link
 * UdpServerEndpoint}); its calls the streams clients reset and the calls refused while a
 * connection drains ({@link TransportEvents#SHUTTING_DOWN}).
 */
final class UdpServerTransport implements ServerTransport, Pump {
  /** How long a graceful shutdown waits for an idle connection's last acknowledgements. */
  private static final long QUIESCE_GRACE_NS = ServerConnection.QUIESCE_GRACE_NS;

  private final InetSocketAddress bindAddress;
  final TransportOptions options;
  /** Where the server reports its events; read once. */
  final TransportEvents events;
  final int maxInboundMessageBytes;
  final int maxHeaderBytes;
  final int[] versions;
  final ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
  private final List<ServerConnection> connections = new ArrayList<>();
  /** Connections being drained: checked every turn until they close. */
  private final List<ServerConnection> draining = new ArrayList<>();
  private volatile UdpServerEndpoint endpoint;
  private volatile InetSocketAddress bound;
  private ServerTransportListener listener;
  private volatile boolean shutdown;
  private boolean shutdownDrained;
  private boolean endpointClosing;
  private long quiesceDeadlineNs = Long.MAX_VALUE;
  /** The earliest age, idle or grace deadline of any connection (a lower bound), MAX_VALUE none. */
  private long nextLimitNs = Long.MAX_VALUE;

  UdpServerTransport(InetSocketAddress bindAddress, TransportOptions options) {
    this.bindAddress = bindAddress;
    this.options = options;
    this.events = options.get(TransportOptions.EVENTS);
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
      ServerConnection sc = new ServerConnection(this, c, System.nanoTime());
      connections.add(sc);
      wakeAt(sc.nextDeadlineNs());
      if (shutdown) {
        sc.drain("the server is shutting down");
      }
      return sc;
    }, UdpTransportOptions.maxConnections(options), "tern-udp-server " + bindAddress, events);
    bound = e.localAddress();
    endpoint = e;
    e.setPump(this);
    e.impair(options.get(UdpTransportOptions.IMPAIRMENT));
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
    draining.remove(c);
  }

  /** A connection has a limit due at {@code deadlineNs}; on the loop. */
  void wakeAt(long deadlineNs) {
    nextLimitNs = Math.min(nextLimitNs, deadlineNs);
  }

  /** A connection started draining; on the loop. */
  void draining(ServerConnection c) {
    if (!draining.contains(c)) {
      draining.add(c);
    }
  }

  /**
   * Whether every connection is quiescent: no stream, nothing unacknowledged (for tests that must
   * know the server has heard every acknowledgement); on the loop.
   */
  boolean allQuiescent() {
    for (int i = 0; i < connections.size(); i++) {
      if (!connections.get(i).connection.isQuiescent()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The streams the server still holds over all its connections, for tests that prove none is
   * kept after its call: {calls' streams, the core connections' live streams}. Taken on the loop;
   * the future fails if the loop has ended.
   */
  CompletableFuture<int[]> streamCounts() {
    CompletableFuture<int[]> f = new CompletableFuture<>();
    if (!run(() -> {
      int calls = 0;
      int core = 0;
      for (int i = 0; i < connections.size(); i++) {
        calls += connections.get(i).streamCount();
        core += connections.get(i).connection.streamCount();
      }
      f.complete(new int[] {calls, core});
    })) {
      f.completeExceptionally(new IllegalStateException("the server has terminated"));
    }
    return f;
  }

  @Override
  public SocketAddress listenAddress() {
    return bound;
  }

  @Override
  public void pump(long nowNs) {
    if (endpointClosing) {
      return;
    }
    if (nextLimitNs != Long.MAX_VALUE && nowNs - nextLimitNs >= 0) {
      // Some connection's age, idle or grace time is up: every deadline is looked at again.
      nextLimitNs = Long.MAX_VALUE;
      for (ServerConnection c : new ArrayList<>(connections)) {
        c.check(nowNs);
        wakeAt(c.nextDeadlineNs());
      }
    }
    // Draining connections close as soon as their calls are done and acknowledged, which an
    // acknowledgement's arrival decides, not a timer.
    if (!draining.isEmpty()) {
      for (ServerConnection c : new ArrayList<>(draining)) {
        c.check(nowNs);
        wakeAt(c.nextDeadlineNs());
      }
    }
    if (!shutdown) {
      return;
    }
    if (!shutdownDrained) {
      shutdownDrained = true;
      for (ServerConnection c : new ArrayList<>(connections)) {
        c.drain("the server is shutting down");
        c.check(nowNs);
        wakeAt(c.nextDeadlineNs());
      }
    }
    boolean allIdle = true;
    for (int i = 0; i < connections.size(); i++) {
      if (connections.get(i).calls() > 0) {
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
    // Every connection closed itself once drained and acknowledged; what is left (connections
    // still in their handshake, or whose acknowledgements did not come) is closed here.
    if (connections.isEmpty() || nowNs - quiesceDeadlineNs >= 0) {
      endpointClosing = true;
      endpoint.close(0, "server shut down");
    }
  }

  @Override
  public long nextDeadlineNs() {
    if (endpointClosing) {
      return Long.MAX_VALUE;
    }
    return shutdown ? Math.min(nextLimitNs, quiesceDeadlineNs) : nextLimitNs;
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
