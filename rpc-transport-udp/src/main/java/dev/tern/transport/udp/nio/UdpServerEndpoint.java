package dev.tern.transport.udp.nio;

import dev.tern.rpc.spi.TransportEvents;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.connection.ServerDemux;
import dev.tern.transport.udp.recovery.LossListener;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.function.Function;

/**
 * A server endpoint on a real socket: one bound, non-blocking {@link DatagramChannel} read with
 * {@code receive()} into one reused buffer, a {@link ServerDemux} that routes each datagram by
 * connection ID, and one loop thread ({@link EndpointLoop}) that owns every connection. Senders
 * become path ids through a {@link PathTable}; each connection's datagrams go to the address of
 * its current path ({@link Connection#currentPathId()}).
 *
 * <p>Datagrams that fit no connection (garbage, forged or corrupt INITIALs, unknown connection
 * IDs) are dropped and counted ({@link #droppedDatagrams()}), never thrown and never kept.
 *
 * <p>What the endpoint sees is reported to the {@link TransportEvents} it was bound with, on the
 * loop thread and without allocating: every datagram's payload sent and received, the packets
 * its connections declared lost (and so send again), and each datagram dropped or connection
 * refused, with its reason ({@link #refusalReason}).
 */
public final class UdpServerEndpoint extends EndpointLoop {
  /** How often unused paths are purged. */
  private static final long PURGE_INTERVAL_NS = 1_000_000_000L;
  /**
   * How long a path no connection sends on is kept after its last datagram: longer than the
   * default idle timeout (30 s, RFC 9000 §10.1), so that a connection that moved away and comes
   * back finds its old path id.
   */
  private static final long PATH_RETENTION_NS = 120_000_000_000L;

  /**
   * The reason reported for an INITIAL of a protocol version this server does not speak, answered
   * with Version Negotiation (docs/protocol.md §3).
   */
  public static final String UNSUPPORTED_VERSION = "unsupported-version";
  /** The refusal reason of an INITIAL beyond the bound on handshakes in progress. */
  public static final String HANDSHAKE_LIMIT = "handshake-limit";
  /** The refusal reason of an INITIAL whose Retry token is expired or for another address. */
  public static final String INVALID_TOKEN = "invalid-token";

  private final ServerDemux demux;
  /** Where the endpoint reports bytes, losses and refusals. */
  private final TransportEvents events;
  /** Reports each connection's lost packets to {@link #events}; one for all connections. */
  private final LossListener lossListener;
  private final PathTable paths = new PathTable();
  private final ByteBuffer reply = ByteBuffer.allocate(DATAGRAM_BYTES);
  private long[] inUse = new long[16];
  private SocketAddress pendingTo;
  /** The sender of the datagram the core is handling now; null between datagrams. */
  private SocketAddress handlingFrom;
  private long nextPurgeNs;
  private boolean anyClosed;
  private boolean closing;
  private long closeCode;
  private String closeReason;
  private long sendErrors;
  private long unroutable;
  private volatile long droppedSnapshot;
  private volatile int connectionsSnapshot;
  private long received;
  private volatile long receivedSnapshot;
  private volatile long versionNegotiationsSnapshot;

  private UdpServerEndpoint(DatagramChannel channel, ConnectionConfig config,
      Function<Connection, ConnectionListener> listeners, int maxConnections, String threadName,
      TransportEvents events) throws IOException {
    super(channel, threadName);
    this.events = events;
    this.lossListener = events::retransmitted;
    // RFC 9000 §9.4: a change of the client's port alone keeps the RTT estimate and controller.
    this.demux = new ServerDemux(config, c -> {
      c.setPathOracle(paths::sameHost);
      c.setLossListener(lossListener);
      return listeners.apply(c);
    }, maxConnections);
    demux.setRefusalListener(why -> events.refused(refusalReason(why)));
    // Address-validation tokens name the client's address: the datagram being handled's.
    demux.setPeerAddresses((pathId, withPort) -> addressBytes(handlingFrom, withPort));
    // The socket is bound (bind() below binds before it constructs): resets prove uptime from now.
    demux.socketBound(System.nanoTime());
  }

  /**
   * Binds {@code address} (port 0: any free port) and starts serving.
   *
   * @param address where to listen; an IPv6 address binds an IPv6 socket, the wildcard address
   *     the platform's default (dual-stack where it has one)
   * @param config every connection's configuration (with the server's static keys)
   * @param listeners gives each new connection its listener (called on the loop thread)
   * @param maxConnections connections beyond this are refused (their INITIALs dropped)
   * @param threadName the loop thread's name
   * @throws IOException if the address cannot be bound; the message names it
   */
  public static UdpServerEndpoint bind(InetSocketAddress address, ConnectionConfig config,
      Function<Connection, ConnectionListener> listeners, int maxConnections, String threadName)
      throws IOException {
    return bind(address, config, listeners, maxConnections, threadName, TransportEvents.NONE);
  }

  /**
   * As {@link #bind(InetSocketAddress, ConnectionConfig, Function, int, String)}, reporting to
   * {@code events}.
   *
   * @param events hears of the bytes sent and received, the packets declared lost and the
   *     datagrams and connections refused (on the loop thread)
   */
  public static UdpServerEndpoint bind(InetSocketAddress address, ConnectionConfig config,
      Function<Connection, ConnectionListener> listeners, int maxConnections, String threadName,
      TransportEvents events) throws IOException {
    java.util.Objects.requireNonNull(events, "events");
    DatagramChannel ch = address.getAddress() instanceof Inet6Address
        && !address.getAddress().isAnyLocalAddress()
        ? DatagramChannel.open(StandardProtocolFamily.INET6) : DatagramChannel.open();
    try {
      try {
        ch.bind(address);
      } catch (IOException e) {
        IOException named = new java.net.BindException("cannot bind UDP " + address + ": "
            + e.getMessage());
        named.initCause(e);
        throw named;
      }
      UdpServerEndpoint e = new UdpServerEndpoint(ch, config, listeners, maxConnections,
          threadName, events);
      e.start();
      return e;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** The live connections; on the loop thread only (a live view; do not modify). */
  public List<Connection> connections() {
    return demux.connections();
  }

  /**
   * Datagrams dropped so far: those the demultiplexer could not route or parse, and those to a
   * path that was purged. Any thread (updated once per loop turn).
   */
  public long droppedDatagrams() {
    return droppedSnapshot;
  }

  /** Datagrams read from the socket so far. Any thread (updated once per loop turn). */
  public long receivedDatagrams() {
    return receivedSnapshot;
  }

  /** Version Negotiation answers sent so far (docs/protocol.md §3). Any thread (once per turn). */
  public long versionNegotiationsSent() {
    return versionNegotiationsSnapshot;
  }

  /** Live connections, as of the last loop turn. Any thread. */
  public int connectionCount() {
    return connectionsSnapshot;
  }

  /**
   * Closes every connection with an application error code (0: no error) and ends the endpoint
   * once all have left their closing period. Any thread; nothing happens once it has ended.
   */
  public void close(long applicationErrorCode, String reason) {
    tryExecute(() -> {
      closing = true;
      closeCode = applicationErrorCode;
      closeReason = reason;
      List<Connection> list = demux.connections();
      for (int i = 0; i < list.size(); i++) {
        list.get(i).close(applicationErrorCode, reason);
      }
    });
  }

  /**
   * The address {@code c}'s datagrams come from and go to now. Loop thread only. While the core
   * handles a datagram (and calls {@code c}'s listener, the only connection it then serves), the
   * datagram's sender: the core moves a connection to a new path only after the packet's frames,
   * and a new path is recorded only once the core took its datagram.
   *
   * @return the client's address, or null if its path is not known
   */
  public SocketAddress remoteAddress(Connection c) {
    SocketAddress from = handlingFrom;
    return from != null ? from : paths.address(c.currentPathId());
  }

  /**
   * The reason a refusal of the demultiplexer is reported with: {@link TransportEvents}'s own
   * where one fits, else {@link #UNSUPPORTED_VERSION}.
   */
  public static String refusalReason(ServerDemux.Refusal why) {
    switch (why) {
      case MALFORMED:
        return TransportEvents.MALFORMED;
      case UNKNOWN_CONNECTION:
        return TransportEvents.UNKNOWN_CONNECTION;
      case CONNECTION_LIMIT:
        return TransportEvents.CONNECTION_LIMIT;
      case UNSUPPORTED_VERSION:
        return UNSUPPORTED_VERSION;
      case HANDSHAKE_LIMIT:
        return HANDSHAKE_LIMIT;
      case INVALID_TOKEN:
        return INVALID_TOKEN;
      default:
        throw new AssertionError(why);
    }
  }

  /**
   * {@code from}'s IP address, then its port if {@code withPort}, for address-validation tokens
   * (RFC 9000 §8.1.3); empty if unknown.
   */
  static byte[] addressBytes(SocketAddress from, boolean withPort) {
    if (!(from instanceof java.net.InetSocketAddress a) || a.getAddress() == null) {
      return new byte[0];
    }
    byte[] ip = a.getAddress().getAddress();
    if (!withPort) {
      return ip;
    }
    byte[] b = java.util.Arrays.copyOf(ip, ip.length + 2);
    b[ip.length] = (byte) (a.getPort() >>> 8);
    b[ip.length + 1] = (byte) a.getPort();
    return b;
  }

  /** Ends the endpoint at once, without telling the clients. */
  public void abort() {
    tryExecute(this::stop);
  }

  @Override
  void receive(long nowNs, int batch) throws IOException {
    for (int i = 0; i < batch; i++) {
      ((Buffer) rxDirect).clear();
      SocketAddress from;
      try {
        from = channel.receive(rxDirect);
      } catch (IOException e) {
        // An ICMP error reported on the socket (a client gone away): nothing to read from it.
        sendErrors++;
        continue;
      }
      if (from == null) {
        return;
      }
      received++;
      moved++;
      ((Buffer) rxDirect).flip();
      events.bytesReceived(rxDirect.remaining());
      ((Buffer) rx).clear();
      ((Buffer) rx.put(rxDirect)).flip();
      received(rx, from, nowNs);
    }
  }

  @Override
  void deliver(ByteBuffer datagram, SocketAddress from, long nowNs) {
    long pathId = paths.find(from, nowNs);
    boolean known = pathId >= 0;
    if (!known) {
      pathId = paths.provisionalId();
    }
    ((Buffer) reply).clear();
    handlingFrom = from;
    long retries = demux.retriesSent();
    Connection c;
    try {
      c = demux.onDatagram(datagram, nowNs, pathId, reply);
    } finally {
      handlingFrom = null;
    }
    if (demux.retriesSent() != retries) {
      events.retrySent(); // docs/protocol.md §9.7, as the quic server counts its Retries
    }
    if (c != null && !known) {
      paths.add(from, nowNs);
    }
    if (c != null && closing && c.state() == ConnectionState.HANDSHAKING) {
      c.close(closeCode, closeReason); // a latecomer while the endpoint closes
      events.refused(TransportEvents.SHUTTING_DOWN);
    }
    if (reply.position() > 0) {
      ((Buffer) reply).flip();
      // Stateless: Version Negotiation (docs/protocol.md §3), a stateless reset (§8), a Retry
      // or a refusal (§9.7, §9.9).
      sendTo(reply, from);
    }
  }

  @Override
  void sendCopy(ByteBuffer datagram, SocketAddress to) {
    try {
      events.bytesSent(channel.send(datagram, to));
    } catch (IOException e) {
      sendErrors++;
    }
  }

  @Override
  void runTimers(long nowNs) {
    List<Connection> list = demux.connections();
    for (int i = 0; i < list.size(); i++) {
      Connection c = list.get(i);
      if (c.nextTimeoutNs() <= nowNs) {
        c.onTimeout(nowNs);
      }
    }
  }

  @Override
  void send(long nowNs) throws IOException {
    if (txPending) {
      if (!sendNow(pendingTo)) {
        return;
      }
      txPending = false;
      pendingTo = null;
      wantWrite(false);
    }
    List<Connection> list = demux.connections();
    boolean any = true;
    while (any) {
      any = false;
      for (int i = 0; i < list.size(); i++) {
        Connection c = list.get(i);
        ((Buffer) tx).clear();
        if (c.pollDatagram(tx, nowNs) == 0) {
          if (c.state() == ConnectionState.CLOSED) {
            anyClosed = true;
          }
          continue;
        }
        any = true;
        moved++;
        SocketAddress to = paths.address(c.currentPathId());
        if (to == null) {
          unroutable++;
          continue;
        }
        ((Buffer) tx).flip();
        ((Buffer) txDirect).clear();
        ((Buffer) txDirect.put(tx)).flip();
        if (impairer != null && impairer.outbound(txDirect, to, impaired)) {
          continue; // dropped or held back by the test's impairment
        }
        if (!sendNow(to)) {
          txPending = true;
          pendingTo = to;
          wantWrite(true);
          return;
        }
        if (impairer != null) {
          impairer.afterSent(impaired);
        }
      }
    }
  }

  /** Sends {@link #txDirect} to {@code to}; false if the socket's buffer is full. */
  private boolean sendNow(SocketAddress to) {
    try {
      int n = channel.send(txDirect, to);
      if (n == 0) {
        return false;
      }
      events.bytesSent(n);
      return true;
    } catch (IOException e) {
      sendErrors++; // an unreachable client: the datagram is lost, recovery handles it
      return true;
    }
  }

  private void sendTo(ByteBuffer datagram, SocketAddress to) {
    ((Buffer) txDirect).clear();
    ((Buffer) txDirect.put(datagram)).flip();
    try {
      events.bytesSent(channel.send(txDirect, to));
    } catch (IOException e) {
      sendErrors++;
    }
  }

  @Override
  void afterTurn(long nowNs) {
    if (anyClosed) {
      anyClosed = false;
      demux.reapClosed();
    }
    if (nowNs - nextPurgeNs >= 0) {
      nextPurgeNs = nowNs + PURGE_INTERVAL_NS;
      purgePaths(nowNs);
    }
    droppedSnapshot = demux.dropped() + unroutable;
    receivedSnapshot = received;
    versionNegotiationsSnapshot = demux.versionNegotiationsSent();
    connectionsSnapshot = demux.connections().size();
    if (closing && demux.connections().isEmpty()) {
      stop();
    }
  }

  private void purgePaths(long nowNs) {
    List<Connection> list = demux.connections();
    if (inUse.length < 2 * list.size()) {
      inUse = new long[Math.max(2 * list.size(), 2 * inUse.length)];
    }
    int n = 0;
    for (int i = 0; i < list.size(); i++) {
      Connection c = list.get(i);
      inUse[n++] = c.currentPathId();
      if (c.fallbackPathId() >= 0) {
        inUse[n++] = c.fallbackPathId(); // a failed validation returns there (RFC 9000 §9.3.2)
      }
    }
    paths.purge(nowNs - PATH_RETENTION_NS, inUse, n);
  }

  @Override
  long nextTimeoutNs() {
    long t = nextPurgeNs;
    List<Connection> list = demux.connections();
    for (int i = 0; i < list.size(); i++) {
      t = Math.min(t, list.get(i).nextTimeoutNs());
    }
    return t;
  }

  @Override
  public String toString() {
    return "UdpServerEndpoint[" + localAddress() + "]";
  }
}
