package dev.tern.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback that forwards each accepted connection to a server, and can be made to
 * go silent ({@link #blackhole(boolean)}): it then keeps every socket open but forwards nothing
 * either way, as a peer that vanished behind a dead path (no FIN, no RST) looks to both ends.
 * One thread per direction per connection: for tests with a handful of connections.
 */
public final class TcpRelay implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private volatile boolean blackhole;
  private volatile boolean closed;

  /**
   * A relay on {@code port} of the loopback address (0 for any).
   *
   * @param server where to forward connections
   * @param port the relay's own port, or 0
   * @throws IOException if the port cannot be bound
   */
  public TcpRelay(InetSocketAddress server, int port) throws IOException {
    this.server = server;
    this.listener = new ServerSocket();
    listener.setReuseAddress(true);
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    Thread acceptor = new Thread(this::accept, "tcp-relay-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The relay's port. */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Stops (true) or resumes (false) forwarding on every connection; bytes read while silent are
   * dropped. New connections are still accepted (and are silent too).
   */
  public void blackhole(boolean on) {
    blackhole = on;
  }

  private void accept() {
    try {
      while (!closed) {
        Socket client = listener.accept();
        Socket upstream = new Socket();
        try {
          upstream.connect(server, 5_000);
        } catch (IOException e) {
          client.close();
          continue;
        }
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream, "tcp-relay-up");
        pump(upstream, client, "tcp-relay-down");
      }
    } catch (IOException e) {
      // closed
    }
  }

  private void pump(Socket from, Socket to, String name) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16384];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          if (!blackhole) {
            out.write(buf, 0, n);
            out.flush();
          }
        }
        to.shutdownOutput();
      } catch (IOException e) {
        // either side closed
      } finally {
        synchronized (gate) {
          try {
            from.close();
            to.close();
          } catch (IOException ignored) {
            // closing
          }
        }
      }
    }, name);
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
