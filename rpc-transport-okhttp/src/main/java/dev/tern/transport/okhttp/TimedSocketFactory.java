package dev.tern.transport.okhttp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * Plain sockets whose connect is bounded: grpc-okhttp connects through {@code createSocket(address,
 * port)}, which on the platform's default factory waits for the kernel's own connect timeout
 * (minutes). A connect that outlasts {@code connectTimeoutMillis} fails with a {@link
 * java.net.SocketTimeoutException}.
 */
final class TimedSocketFactory extends SocketFactory {
  private final int connectTimeoutMillis;

  TimedSocketFactory(long connectTimeoutMillis) {
    this.connectTimeoutMillis = (int) Math.max(0, Math.min(Integer.MAX_VALUE, connectTimeoutMillis));
  }

  @Override
  public Socket createSocket() {
    return new Socket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return connect(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
    return connect(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return connect(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return connect(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
  }

  private Socket connect(InetSocketAddress to, InetSocketAddress from) throws IOException {
    Socket socket = new Socket();
    try {
      if (from != null) {
        socket.bind(from);
      }
      socket.connect(to, connectTimeoutMillis);
      return socket;
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }
}
