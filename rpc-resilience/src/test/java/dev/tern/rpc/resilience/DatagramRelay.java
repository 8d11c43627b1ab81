package dev.tern.rpc.resilience;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A UDP relay on loopback between one client and a server's datagram port, that can be told to
 * drop every datagram the client sends: the server then receives nothing, as a server (or a
 * network) that drops the datagram transport would, while what the server already sent still
 * arrives.
 */
final class DatagramRelay implements AutoCloseable {
  private final DatagramSocket socket;
  private final InetSocketAddress server;
  private final Thread thread;
  private volatile SocketAddress client;
  volatile boolean dropping;
  final AtomicInteger dropped = new AtomicInteger();

  DatagramRelay(InetSocketAddress server) throws SocketException {
    this.server = server;
    this.socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    this.thread = new Thread(this::run, "datagram-relay");
    thread.setDaemon(true);
    thread.start();
  }

  int port() {
    return socket.getLocalPort();
  }

  private void run() {
    DatagramPacket p = new DatagramPacket(new byte[65535], 65535);
    try {
      while (true) {
        p.setLength(65535);
        socket.receive(p);
        SocketAddress from = p.getSocketAddress();
        if (from.equals(server)) {
          SocketAddress to = client;
          if (to != null) {
            socket.send(new DatagramPacket(p.getData(), p.getLength(), to));
          }
        } else {
          client = from;
          if (dropping) {
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
