package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.Echo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.HttpConnectProxiedSocketAddress;
import io.grpc.ManagedChannel;
import io.grpc.ProxyDetector;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP CONNECT proxies (RFC 9110 §9.3.6) for TCP, as grpc-java: a channel's {@code
 * proxyDetector} sends its connection through the proxy it names, the JVM's {@link ProxySelector}
 * decides when none is given, and the target is handed to the proxy unresolved. The proxy is a
 * real one on a socket: it reads the CONNECT request, connects to the target and relays bytes.
 * Stock grpc-netty with the same detector is the reference.
 */
@Timeout(60)
class HttpConnectProxyTest {
  private ServerSocket proxySocket;
  private final List<String> connects = new CopyOnWriteArrayList<>();
  private Server server;
  private ManagedChannel channel;
  private ProxySelector savedSelector;

  @BeforeEach
  void start() throws Exception {
    savedSelector = ProxySelector.getDefault();
    server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).build().start();
    proxySocket = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    Thread acceptor = new Thread(this::acceptLoop, "connect-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void acceptLoop() {
    while (!proxySocket.isClosed()) {
      try {
        Socket client = proxySocket.accept();
        Thread t = new Thread(() -> relay(client), "connect-proxy-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  /** One CONNECT: the request head, a connection to its target, then bytes both ways. */
  private void relay(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      StringBuilder head = new StringBuilder();
      while (!head.toString().endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          return;
        }
        head.append((char) b);
      }
      String requestLine = head.substring(0, head.indexOf("\r\n"));
      connects.add(requestLine);
      String[] parts = requestLine.split(" ");
      String authority = parts[1];
      int colon = authority.lastIndexOf(':');
      try (Socket target = new Socket(authority.substring(0, colon), Integer.parseInt(authority.substring(colon + 1)))) {
        OutputStream out = client.getOutputStream();
        out.write("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        Thread up = new Thread(() -> pipe(in, target), "connect-proxy-up");
        up.setDaemon(true);
        up.start();
        pipe(target.getInputStream(), client);
      }
    } catch (IOException e) {
      // the connection ended
    }
  }

  private static void pipe(InputStream from, Socket to) {
    try {
      from.transferTo(to.getOutputStream());
      to.shutdownOutput();
    } catch (IOException e) {
      // the other side closed
    }
  }

  private ProxyDetector viaProxy() {
    return target -> HttpConnectProxiedSocketAddress.newBuilder()
        .setTargetAddress((InetSocketAddress) target)
        .setProxyAddress(proxySocket.getLocalSocketAddress()).build();
  }

  @Test
  void aChannelsProxyDetectorSendsItThroughTheProxyAsGrpcNettyDoes() throws Exception {
    String target = "localhost:" + server.getPort();
    ManagedChannel stock = NettyChannelBuilder.forTarget(target).proxyDetector(viaProxy()).usePlaintext().build();
    try {
      assertThat(Echo.call(stock, "stock via proxy")).isEqualTo("stock via proxy");
    } finally {
      stock.shutdownNow();
      assertThat(stock.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(connects).as("grpc-netty's CONNECT").containsExactly("CONNECT " + target + " HTTP/1.1");

    connects.clear();
    channel = TernChannelBuilder.forTarget(target).proxyDetector(viaProxy()).transports("tcp").usePlaintext().build();
    assertThat(Echo.call(channel, "tern via proxy")).isEqualTo("tern via proxy");
    assertThat(connects).as("Tern's CONNECT, the target unresolved as grpc-netty sends it")
        .containsExactly("CONNECT " + target + " HTTP/1.1");
  }

  @Test
  void withoutADetectorTheJvmsProxySelectorDecides() throws Exception {
    String target = "localhost:" + server.getPort();
    ProxySelector.setDefault(new ProxySelector() {
      @Override
      public List<Proxy> select(URI uri) {
        return uri.getPort() == server.getPort()
            ? List.of(new Proxy(Proxy.Type.HTTP, proxySocket.getLocalSocketAddress())) : List.of(Proxy.NO_PROXY);
      }

      @Override
      public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {}
    });
    channel = TernChannelBuilder.forTarget(target).usePlaintext().build();
    assertThat(Echo.call(channel, "system proxy")).isEqualTo("system proxy");
    assertThat(connects).containsExactly("CONNECT " + target + " HTTP/1.1");
  }

  @Test
  void aDetectorThatFindsNoProxyConnectsDirectly() throws Exception {
    channel = TernChannelBuilder.forTarget("localhost:" + server.getPort()).proxyDetector(t -> null)
        .usePlaintext().build();
    assertThat(Echo.call(channel, "direct")).isEqualTo("direct");
    assertThat(connects).isEmpty();
  }

  @AfterEach
  void stop() throws Exception {
    ProxySelector.setDefault(savedSelector);
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    server.shutdownNow();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    proxySocket.close();
  }
}
