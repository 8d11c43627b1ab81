package dev.tern.transport.udp.nio;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ConnectionState;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;

/**
 * A client endpoint on a real socket: one connected, non-blocking {@link DatagramChannel} (so that
 * reads and writes name no address and the kernel drops datagrams from anyone but the server),
 * one {@link Connection}, one loop thread ({@link EndpointLoop}). The endpoint ends once the
 * connection is closed (after its closing or draining period, RFC 9000 §10.2), or at once on
 * {@link #abort()} or an I/O error: an ICMP port unreachable (nothing listens at the server's
 * address) fails it with {@link PortUnreachableException} in {@link #failure()}.
 *
 * <p>The connection and the listener's callbacks belong to the loop thread: touch the
 * connection only in tasks given to {@link #execute} or in the listener and {@link Pump}.
 */
public final class UdpClientEndpoint extends EndpointLoop {
  private final Connection connection;
  private final InetSocketAddress server;

  private UdpClientEndpoint(DatagramChannel channel, InetSocketAddress server,
      ConnectionConfig config, ConnectionListener listener, String threadName) throws IOException {
    super(channel, threadName);
    this.server = server;
    this.connection = Connection.client(config, listener);
  }

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
    if (server.isUnresolved()) {
      throw new IllegalArgumentException("server address " + server + " is unresolved");
    }
    boolean v6 = server.getAddress() instanceof java.net.Inet6Address;
    DatagramChannel ch = DatagramChannel.open(v6 ? StandardProtocolFamily.INET6
        : StandardProtocolFamily.INET);
    try {
      ch.connect(server);
      UdpClientEndpoint e = new UdpClientEndpoint(ch, server, config, listener, threadName);
      beforeStart.accept(e);
      e.start();
      return e;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
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
      rxDirect.clear();
      int n;
      try {
        n = channel.read(rxDirect);
      } catch (PortUnreachableException e) {
        fail(e);
        return;
      }
      if (n <= 0) {
        return;
      }
      moved++;
      rxDirect.flip();
      rx.clear();
      rx.put(rxDirect).flip();
      connection.onDatagram(rx, nowNs);
    }
  }

  @Override
  void runTimers(long nowNs) {
    if (connection.nextTimeoutNs() <= nowNs) {
      connection.onTimeout(nowNs);
    }
  }

  @Override
  void send(long nowNs) throws IOException {
    try {
      if (txPending) {
        if (channel.write(txDirect) == 0) {
          return;
        }
        txPending = false;
        wantWrite(false);
      }
      while (true) {
        tx.clear();
        if (connection.pollDatagram(tx, nowNs) == 0) {
          return;
        }
        moved++;
        tx.flip();
        txDirect.clear();
        txDirect.put(tx).flip();
        if (channel.write(txDirect) == 0) {
          // The socket's send buffer is full: keep the datagram until it drains.
          txPending = true;
          wantWrite(true);
          return;
        }
      }
    } catch (PortUnreachableException e) {
      fail(e);
    }
  }

  @Override
  void afterTurn(long nowNs) {
    if (connection.state() == ConnectionState.CLOSED) {
      stop();
    }
  }

  @Override
  long nextTimeoutNs() {
    return connection.nextTimeoutNs();
  }

  @Override
  public String toString() {
    return "UdpClientEndpoint[" + server + "]";
  }
}
