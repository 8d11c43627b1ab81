package dev.tern.conformance;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A UDP relay on loopback between one client and a server's datagram port, whose link can be cut
 * one way or both: with {@link Mode#DROP_UPSTREAM} the server hears nothing more while what it sends
 * still arrives (a network, or a server, that drops the datagram transport); with {@link
 * Mode#DROP_BOTH} the server vanishes without a word, as a peer behind a dead path. The client is
 * whoever last sent from an address other than the server's.
 */
public final class DatagramRelay implements AutoCloseable {
  /** What the relay does with datagrams. */
  public enum Mode {
    /** Forwards both ways. */
    FORWARD,
    /** Drops what the client sends; forwards what the server sends. */
    DROP_UPSTREAM,
    /** Drops everything. */
    DROP_BOTH
  }

  private final DatagramSocket socket;
  private final InetSocketAddress server;
  private final Thread thread;
  private volatile SocketAddress client;
  private volatile Mode mode = Mode.FORWARD;
  private final AtomicLong dropped = new AtomicLong();

  /**
   * A relay on an ephemeral loopback port.
   *
   * @param server where to forward the client's datagrams
   * @throws SocketException if no port can be bound
   */
  public DatagramRelay(InetSocketAddress server) throws SocketException {
    this(server, 0);
  }

  /**
   * A relay on {@code port} of the loopback address (0 for any).
   *
   * @param server where to forward the client's datagrams
   * @param port the relay's own port, or 0
   * @throws SocketException if the port cannot be bound
   */
  public DatagramRelay(InetSocketAddress server, int port) throws SocketException {
    this.server = server;
    this.socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    this.thread = new Thread(this::run, "datagram-relay");
    thread.setDaemon(true);
    thread.start();
  }

  /** The relay's port, where clients send. */
  public int port() {
    return socket.getLocalPort();
  }

  /** Sets what the relay does from now on. */
  public void mode(Mode mode) {
    this.mode = mode;
  }

  /** Datagrams dropped so far, both ways. */
  public long dropped() {
    return dropped.get();
  }

  private void run() {
    DatagramPacket p = new DatagramPacket(new byte[65535], 65535);
    try {
      while (true) {
        p.setLength(65535);
        socket.receive(p);
        SocketAddress from = p.getSocketAddress();
        Mode m = mode;
        if (from.equals(server)) {
          SocketAddress to = client;
          if (m == Mode.DROP_BOTH) {
            dropped.incrementAndGet();
          } else if (to != null) {
            socket.send(new DatagramPacket(p.getData(), p.getLength(), to));
          }
        } else {
          client = from;
          if (m != Mode.FORWARD) {
            dropped.incrementAndGet();
          } else {
            socket.send(new DatagramPacket(p.getData(), p.getLength(), server));
          }
        }
      }
    } catch (IOException closed) {
      // the relay was closed
    }
  }

  @Override
  public void close() throws InterruptedException {
    socket.close();
    thread.join(5000);
  }
}
