package dev.tern.transport.quic;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;

/**
 * A loopback UDP relay between one client and one server that can turn into a black hole: once
 * {@link #blackHole()} is called it drops every datagram both ways, as a path that died without a
 * word would. Counts the UDP payload bytes it forwards from the server to the client. Forwards on
 * a thread of its own until closed.
 */
final class UdpRelay implements AutoCloseable {
  private final DatagramChannel socket;
  private final InetSocketAddress server;
  private final Thread thread;
  private volatile boolean dropping;
  /** Forward the client's first datagram, then nothing either way (a peer gone silent mid-handshake). */
  private volatile boolean silentAfterFirst;
  /** Datagrams from the server still to forward; the rest are dropped. */
  private volatile int serverDatagramsLeft = Integer.MAX_VALUE;
  private volatile long dropped;
  private final Object counted = new Object();
  private long toClientBytes;

  UdpRelay(InetSocketAddress server) throws IOException {
    this.server = server;
    this.socket = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    this.thread = new Thread(this::run, "udp-relay");
    thread.setDaemon(true);
    thread.start();
  }

  /** Where the client should connect. */
  InetSocketAddress address() throws IOException {
    return (InetSocketAddress) socket.getLocalAddress();
  }

  /** From now on every datagram is dropped. */
  void blackHole() {
    dropping = true;
  }

  /**
   * Forwards the client's first datagram only, then drops every datagram both ways: the server
   * has a connection whose handshake can never finish.
   */
  void silentAfterFirstClientDatagram() {
    silentAfterFirst = true;
  }

  /**
   * Forwards only the server's first {@code n} datagrams to the client and drops the rest, while
   * every datagram of the client's still reaches the server: with {@code n = 1}, a client that
   * follows the server's Retry (RFC 9000 §8.1.2) but never hears the handshake's answer.
   */
  void forwardServerDatagrams(int n) {
    serverDatagramsLeft = n;
  }

  /** Datagrams dropped since {@link #blackHole()}. */
  long dropped() {
    return dropped;
  }

  /** UDP payload bytes forwarded from the server to the client so far. */
  long toClientBytes() {
    synchronized (counted) {
      return toClientBytes;
    }
  }

  /**
   * Waits until at least {@code bytes} have been forwarded to the client.
   *
   * @return true if they were, false if {@code timeoutMillis} passed first
   */
  boolean awaitToClientBytes(long bytes, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    synchronized (counted) {
      while (toClientBytes < bytes) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(counted, left);
      }
      return true;
    }
  }

  private void run() {
    ByteBuffer buf = ByteBuffer.allocate(65536);
    SocketAddress client = null;
    try {
      while (true) {
        buf.clear();
        SocketAddress from = socket.receive(buf);
        if (dropping) {
          dropped++;
          continue;
        }
        buf.flip();
        if (from.equals(server)) {
          if (serverDatagramsLeft <= 0) {
            dropped++;
            continue;
          }
          if (serverDatagramsLeft != Integer.MAX_VALUE) {
            serverDatagramsLeft--;
          }
          if (client != null) {
            int n = buf.remaining();
            socket.send(buf, client);
            synchronized (counted) {
              toClientBytes += n;
              counted.notifyAll();
            }
          }
        } else {
          client = from;
          socket.send(buf, server);
          if (silentAfterFirst) {
            dropping = true;
          }
        }
      }
    } catch (ClosedChannelException e) {
      // closed: done
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws Exception {
    socket.close();
    thread.join(5000);
  }
}
