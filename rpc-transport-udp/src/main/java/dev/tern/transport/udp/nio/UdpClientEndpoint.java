package dev.tern.transport.udp.nio;

import dev.tern.rpc.spi.TransportEvents;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ConnectionState;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * A client endpoint on a real socket: one connected, non-blocking {@link DatagramChannel} (so that
 * reads and writes name no address and the kernel drops datagrams from anyone but the server),
 * one {@link Connection}, one loop thread ({@link EndpointLoop}). The endpoint ends once the
 * connection is closed (after its closing or draining period, RFC 9000 §10.2), or at once on
 * {@link #abort()}, or on an ICMP port unreachable (nothing listens at the server's address any
 * more), which fails it with {@link PortUnreachableException} in {@link #failure()}.
 *
 * <p>The client moves when its address does (RFC 9000 §9.2). A connected socket keeps the source
 * address it was given at connect; once that address is gone (a phone left its Wi-Fi, a network
 * was renumbered) the kernel refuses its sends ("Network is unreachable", "Cannot assign requested
 * address"). Such a refusal replaces the socket with a new one connected to the server, from
 * whatever address the kernel now chooses, resends the datagram from it and tells the connection
 * ({@link Connection#onLocalAddressChanged}), which pings the server at once so that it follows
 * (§9.3). If no socket can send yet (no route), the datagram is dropped and counted and the next
 * refusal tries again, at most every 10 ms, backing off to once a second while sends keep
 * failing; the connection's loss recovery resends what was dropped. A driver that hears of an
 * interface change first calls {@link #rebind()}. Other socket errors reported on a read (ICMP
 * host or network unreachable, which a mobile network sends in passing) are counted and do not
 * end the connection: only the connection's own timers decide that the server is gone.
 *
 * <p>The connection and the listener's callbacks belong to the loop thread: touch the
 * connection only in tasks given to {@link #execute} or in the listener and {@link Pump}.
 *
 * <p>Every datagram's payload sent and received, and the packets the connection declared lost
 * (and so sends again), are reported to the {@link TransportEvents} the endpoint was opened with,
 * on the loop thread and without allocating.
 */
public final class UdpClientEndpoint extends EndpointLoop {
  /** The first wait between two attempts to replace a socket that cannot send. */
  private static final long REBIND_MIN_INTERVAL_NS = 10_000_000L;
  /** The longest wait between two such attempts while sends keep failing. */
  private static final long REBIND_MAX_INTERVAL_NS = 1_000_000_000L;

  private final Connection connection;
  private final InetSocketAddress server;
  /** Where the endpoint reports bytes and losses. */
  private final TransportEvents events;
  private long rebindIntervalNs = REBIND_MIN_INTERVAL_NS;
  /** No socket is replaced before this time ({@link System#nanoTime()} base), unless asked. */
  private long nextRebindNs;
  private boolean rebindWaiting;
  private long socketErrorsIgnored;

  private UdpClientEndpoint(DatagramChannel channel, InetSocketAddress server,
      ConnectionConfig config, ConnectionListener listener, String threadName,
      TransportEvents events) throws IOException {
    super(channel, threadName);
    this.server = server;
    this.events = events;
    this.connection = Connection.client(config, listener);
    connection.setLossListener(events::retransmitted);
  }

  /** Until then ({@link System#nanoTime()}) the first flight waits; 0 when not held. */
  private long holdFirstFlightUntilNs;

  /**
   * Opens a socket connected to {@code server} and starts the handshake.
   *
   * @param server the server's address (IPv4 or IPv6, resolved)
   * @param config the connection's configuration (with the pinned server key)
   * @param listener hears the connection's events on the loop thread
   * @param threadName the loop thread's name
   * @throws IOException if the socket cannot be opened or connected
   * @throws IllegalArgumentException if {@code server} is unresolved
   */
  public static UdpClientEndpoint connect(InetSocketAddress server, ConnectionConfig config,
      ConnectionListener listener, String threadName) throws IOException {
    return connect(server, config, listener, threadName, e -> { });
  }

  /**
   * As {@link #connect(InetSocketAddress, ConnectionConfig, ConnectionListener, String)}, handing
   * the endpoint to {@code beforeStart} before its loop starts: the loop may complete a handshake
   * on loopback before this method returns, and an owner that must know its endpoint by then
   * (to take calls the moment it is ready) records it there.
   *
   * @param beforeStart runs on the caller's thread with the endpoint, before the loop starts
   */
  public static UdpClientEndpoint connect(InetSocketAddress server, ConnectionConfig config,
      ConnectionListener listener, String threadName,
      java.util.function.Consumer<UdpClientEndpoint> beforeStart) throws IOException {
    return connect(server, config, listener, threadName, TransportEvents.NONE, beforeStart);
  }

  /**
   * As {@link #connect(InetSocketAddress, ConnectionConfig, ConnectionListener, String,
   * java.util.function.Consumer)}, reporting to {@code events}.
   *
   * @param events hears of the bytes sent and received and the packets declared lost (on the loop
   *     thread)
   */
  public static UdpClientEndpoint connect(InetSocketAddress server, ConnectionConfig config,
      ConnectionListener listener, String threadName, TransportEvents events,
      java.util.function.Consumer<UdpClientEndpoint> beforeStart) throws IOException {
    java.util.Objects.requireNonNull(events, "events");
    if (server.isUnresolved()) {
      throw new IllegalArgumentException("server address " + server + " is unresolved");
    }
    DatagramChannel ch = open(server);
    try {
      UdpClientEndpoint e = new UdpClientEndpoint(ch, server, config, listener, threadName,
          events);
      beforeStart.accept(e);
      e.start();
      return e;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** A socket connected to {@code server}, blocking (the loop makes it non-blocking). */
  private static DatagramChannel open(InetSocketAddress server) throws IOException {
    boolean v6 = server.getAddress() instanceof java.net.Inet6Address;
    DatagramChannel ch = DatagramChannel.open(v6 ? StandardProtocolFamily.INET6
        : StandardProtocolFamily.INET);
    try {
      ch.connect(server);
      return ch;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * The client's network changed (an interface event a driver heard): the socket is replaced by
   * one sending from the address the kernel now chooses, and the connection moves to it as it does
   * when a send is refused. Any thread; nothing happens once the endpoint has ended.
   */
  public void rebind() {
    tryExecute(() -> {
      if (connection.state() != ConnectionState.CLOSED) {
        rebindWaiting = false; // asked for: not held back by the interval
        replaceSocket(System.nanoTime());
      }
    });
  }

  /**
   * Changes of this client's own address: sockets replaced because the old one could no longer
   * send, or on {@link #rebind()}. On the loop thread only.
   */
  public long localAddressChanges() {
    return connection.stats().localAddressChanges;
  }

  /** Socket errors reported on reads and ignored (ICMP unreachable); on the loop thread only. */
  public long socketErrorsIgnored() {
    return socketErrorsIgnored;
  }

  /** The connection; on the loop thread only. */
  public Connection connection() {
    return connection;
  }

  /** The server's address. */
  public InetSocketAddress remoteAddress() {
    return server;
  }

  /**
   * Closes the connection with an application error code (0: no error); the endpoint ends after
   * the closing period. Any thread; nothing happens once the endpoint has ended.
   */
  public void close(long applicationErrorCode, String reason) {
    tryExecute(() -> connection.close(applicationErrorCode, reason));
  }

  /** Ends the endpoint at once, without telling the server (its idle timeout will). */
  public void abort() {
    tryExecute(this::stop);
  }

  @Override
  void receive(long nowNs, int batch) throws IOException {
    for (int i = 0; i < batch; i++) {
      ((Buffer) rxDirect).clear();
      int n;
      try {
        n = channel.read(rxDirect);
      } catch (PortUnreachableException e) {
        fail(e);
        return;
      } catch (IOException e) {
        // A socket error the kernel reports on a connected socket (an ICMP host or network
        // unreachable): reading it cleared it. It says nothing the connection's timers cannot.
        socketErrorsIgnored++;
        return;
      }
      if (n <= 0) {
        return;
      }
      moved++;
      events.bytesReceived(n);
      ((Buffer) rxDirect).flip();
      ((Buffer) rx).clear();
      ((Buffer) rx.put(rxDirect)).flip();
      received(rx, null, nowNs);
    }
  }

  @Override
  void deliver(ByteBuffer datagram, SocketAddress from, long nowNs) {
    connection.onDatagram(datagram, nowNs);
  }

  @Override
  void sendCopy(ByteBuffer datagram, SocketAddress to) {
    try {
      events.bytesSent(channel.write(datagram));
    } catch (IOException e) {
      // Best effort: a copy the socket refuses is a datagram lost.
    }
  }

  @Override
  void runTimers(long nowNs) {
    if (connection.nextTimeoutNs() <= nowNs) {
      connection.onTimeout(nowNs);
    }
  }

  /**
   * Holds the connection's first flight until {@link #releaseFirstFlight()}, or {@code maxNs} from
   * now at the latest. A resuming client's owner opens the calls that may go in early data right
   * after it connects; on a fast path (loopback) the handshake could otherwise complete before
   * their requests are written, and they would go in 1-RTT packets instead of the first flight
   * (docs/protocol.md §9.10). Call before the loop starts, in {@code connect}'s
   * {@code beforeStart}.
   *
   * @param maxNs the longest hold, in nanoseconds
   */
  public void holdFirstFlight(long maxNs) {
    long until = System.nanoTime() + maxNs;
    holdFirstFlightUntilNs = until == 0 ? 1 : until;
  }

  /** Lets a held first flight go at the loop's next sends; on the loop thread. */
  public void releaseFirstFlight() {
    holdFirstFlightUntilNs = 0;
  }

  @Override
  void send(long nowNs) throws IOException {
    if (holdFirstFlightUntilNs != 0) {
      if (nowNs - holdFirstFlightUntilNs < 0) {
        return; // nothing has been sent yet: no timer of the connection's runs meanwhile
      }
      holdFirstFlightUntilNs = 0;
    }
    try {
      if (txPending) {
        if (!transmit(nowNs)) {
          return;
        }
        txPending = false;
        wantWrite(false);
      }
      while (true) {
        ((Buffer) tx).clear();
        if (connection.pollDatagram(tx, nowNs) == 0) {
          return;
        }
        moved++;
        ((Buffer) tx).flip();
        ((Buffer) txDirect).clear();
        ((Buffer) txDirect.put(tx)).flip();
        if (impairer != null && impairer.outbound(txDirect, server, impaired)) {
          continue; // dropped or held back by the test's impairment
        }
        if (!transmit(nowNs)) {
          // The socket's send buffer is full: keep the datagram until it drains.
          txPending = true;
          wantWrite(true);
          return;
        }
        if (impairer != null) {
          impairer.afterSent(impaired);
        }
      }
    } catch (PortUnreachableException e) {
      fail(e);
    }
  }

  /**
   * Sends the datagram in {@link #txDirect}. Returns false if the socket's buffer is full (the
   * datagram stays for later), true once it left or was dropped because no socket could send it.
   */
  private boolean transmit(long nowNs) throws IOException {
    try {
      int n = channel.write(txDirect);
      rebindIntervalNs = REBIND_MIN_INTERVAL_NS;
      events.bytesSent(n);
      return n != 0;
    } catch (PortUnreachableException e) {
      throw e;
    } catch (IOException refused) {
      // The socket can no longer send from its address (RFC 9000 §9.2: the client moves).
      if (replaceSocket(nowNs)) {
        ((Buffer) txDirect).position(0);
        try {
          int n = channel.write(txDirect);
          events.bytesSent(n);
          return n != 0;
        } catch (PortUnreachableException e) {
          throw e;
        } catch (IOException stillRefused) {
          // Dropped below; the next refusal tries another socket after the interval.
        }
      }
      connection.stats().datagramsUnsent++;
      return true;
    }
  }

  /**
   * Replaces the socket with a new one connected to the server, unless the last attempt was less
   * than the current interval ago (which doubles with each attempt until a send succeeds). True
   * if it was replaced; the connection has been told.
   */
  private boolean replaceSocket(long nowNs) {
    if (rebindWaiting && nowNs - nextRebindNs < 0) {
      return false;
    }
    rebindWaiting = true;
    nextRebindNs = nowNs + rebindIntervalNs;
    rebindIntervalNs = Math.min(rebindIntervalNs * 2, REBIND_MAX_INTERVAL_NS);
    DatagramChannel next;
    try {
      next = open(server);
    } catch (IOException e) {
      return false; // no route from any address yet
    }
    try {
      replaceChannel(next);
    } catch (IOException e) {
      try {
        next.close();
      } catch (IOException ignored) {
        // nothing to release beyond the descriptor
      }
      return false;
    }
    connection.onLocalAddressChanged(nowNs);
    return true;
  }

  @Override
  void afterTurn(long nowNs) {
    if (connection.state() == ConnectionState.CLOSED) {
      stop();
    }
  }

  @Override
  long nextTimeoutNs() {
    long t = connection.nextTimeoutNs();
    return holdFirstFlightUntilNs != 0 ? Math.min(t, holdFirstFlightUntilNs) : t;
  }

  @Override
  public String toString() {
    return "UdpClientEndpoint[" + server + "]";
  }
}
