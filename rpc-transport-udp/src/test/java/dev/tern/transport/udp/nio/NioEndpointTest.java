package dev.tern.transport.udp.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NIO driver over real loopback sockets (IPv4, and IPv6 where the machine has {@code ::1}):
 * the handshake, a 1 MiB echo, many concurrent streams, garbage thrown at the server, closing
 * from either side, and a client finding nothing listening.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NioEndpointTest {
  private static final long WAIT_S = 20;

  private final List<EndpointLoop> endpoints = new ArrayList<>();
  private final List<EchoServerApp> serverApps = new CopyOnWriteArrayList<>();
  private ConnectionConfig clientConfig;
  private ConnectionConfig serverConfig;

  private void keys() {
    CryptoProvider crypto = ConnectionConfig.defaults().cryptoProvider();
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    serverConfig = ConnectionConfig.builder().serverStaticKeys(new ServerStaticKey(1, key)).build();
    clientConfig = ConnectionConfig.builder()
        .pinnedServerKeys(new PinnedServerKey(1, crypto.x25519().publicKey(key))).build();
  }

  private UdpServerEndpoint server(InetAddress host) throws Exception {
    keys();
    UdpServerEndpoint s = UdpServerEndpoint.bind(new InetSocketAddress(host, 0), serverConfig,
        c -> {
          EchoServerApp app = new EchoServerApp(c);
          serverApps.add(app);
          return app;
        }, 64, "test-udp-server");
    endpoints.add(s);
    return s;
  }

  private UdpClientEndpoint client(UdpServerEndpoint server, EchoClientApp app) throws Exception {
    InetSocketAddress to = new InetSocketAddress(server.localAddress().getAddress(),
        server.localAddress().getPort());
    // Before the loop starts: on loopback the handshake may be done before connect returns.
    UdpClientEndpoint c = UdpClientEndpoint.connect(to, clientConfig, app, "test-udp-client", e -> {
      app.attach(e.connection());
      e.setPump(app);
    });
    endpoints.add(c);
    return c;
  }

  @AfterEach
  void closeAll() throws Exception {
    for (EndpointLoop e : endpoints) {
      e.tryExecute(e::stop);
    }
    for (EndpointLoop e : endpoints) {
      e.terminated().get(WAIT_S, TimeUnit.SECONDS);
    }
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT_S, TimeUnit.SECONDS);
  }

  private static InetAddress v6Loopback() {
    try {
      InetAddress a = InetAddress.getByName("::1");
      try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(a, 0))) {
        return a;
      }
    } catch (Exception e) {
      return null;
    }
  }

  @Test
  void handshakeCompletesOverIpv4() throws Exception {
    UdpServerEndpoint server = server(InetAddress.getByName("127.0.0.1"));
    EchoClientApp app = new EchoClientApp();
    client(server, app);
    assertThat(await(app.handshake)).isTrue();
    assertThat(await(serverApps.get(0).handshake)).isTrue();
  }

  @Test
  void echoOfOneMebibyteOverIpv4() throws Exception {
    echoOneMebibyte(InetAddress.getByName("127.0.0.1"));
  }

  @Test
  void echoOfOneMebibyteOverIpv6() throws Exception {
    InetAddress v6 = v6Loopback();
    assumeTrue(v6 != null, "this machine has no ::1");
    echoOneMebibyte(v6);
  }

  private void echoOneMebibyte(InetAddress host) throws Exception {
    UdpServerEndpoint server = server(host);
    EchoClientApp app = new EchoClientApp().exchanges(1, 1 << 20);
    client(server, app);
    assertThat(await(app.all().get(0).done)).isEqualTo(1 << 20);
  }

  @Test
  void manyConcurrentStreamsAllEcho() throws Exception {
    UdpServerEndpoint server = server(InetAddress.getByName("127.0.0.1"));
    // More streams than the server's limit (100) lets open at once: the rest wait for slots.
    EchoClientApp app = new EchoClientApp().exchanges(150, 20_000);
    client(server, app);
    for (EchoClientApp.Exchange x : app.all()) {
      assertThat(await(x.done)).as("exchange %d", x.index).isEqualTo(20_000);
    }
  }

  @Test
  void garbageIsDroppedAndCountedAndTheServerKeepsServing() throws Exception {
    UdpServerEndpoint server = server(InetAddress.getByName("127.0.0.1"));
    // Garbage first, on a server no client talks to, so that every datagram it reads is garbage.
    long before = server.droppedDatagrams();
    long receivedBefore = server.receivedDatagrams();
    long answeredBefore = server.versionNegotiationsSent();
    Random random = new Random(7);
    int sent = 0;
    try (DatagramSocket raw = new DatagramSocket()) {
      for (int i = 0; i < 300; i++) {
        byte[] junk = new byte[1 + random.nextInt(1400)];
        random.nextBytes(junk);
        if (i % 3 == 0 && junk.length >= 1200) {
          junk[0] = (byte) 0xc0; // a long header, as an INITIAL would start
          junk[1] = 0x54;
          junk[2] = 0x4e;
          junk[3] = 0x00;
          junk[4] = 0x02;
        }
        raw.send(new DatagramPacket(junk, junk.length, server.localAddress()));
        sent++;
      }
    }
    // A real client after the garbage: the server reads its socket in order, so once this
    // exchange is done every garbage datagram that arrived has been read and counted.
    EchoClientApp first = new EchoClientApp().exchanges(1, 10_000);
    client(server, first);
    assertThat(await(first.all().get(0).done)).isEqualTo(10_000);
    long accounted = (server.droppedDatagrams() - before) + (server.versionNegotiationsSent() - answeredBefore);
    // The garbage that arrived (the kernel may drop some of a burst on a busy machine) was
    // dropped and counted or answered with Version Negotiation; none of it created state.
    assertThat(accounted).as("garbage dropped and counted, or answered").isPositive().isLessThanOrEqualTo(sent);
    assertThat(server.receivedDatagrams() - receivedBefore).as("datagrams the server read")
        .isGreaterThan(accounted);
    assertThat(server.connectionCount()).as("only the real client holds state").isEqualTo(1);
    EchoClientApp second = new EchoClientApp().exchanges(3, 50_000);
    client(server, second);
    for (EchoClientApp.Exchange x : second.all()) {
      assertThat(await(x.done)).isEqualTo(50_000);
    }
    assertThat(server.connectionCount()).as("only the two real clients hold state").isEqualTo(2);
  }

  @Test
  void clientCloseReachesTheServerAndEndsTheClient() throws Exception {
    UdpServerEndpoint server = server(InetAddress.getByName("127.0.0.1"));
    EchoClientApp app = new EchoClientApp();
    UdpClientEndpoint client = client(server, app);
    await(app.handshake);
    await(serverApps.get(0).handshake);
    client.close(0, "done");
    assertThat(await(serverApps.get(0).closed)).as("the server heard it from the client").isTrue();
    assertThat(await(app.closed)).as("the client closed it itself").isFalse();
    await(client.terminated());
    assertThat(client.failure()).isNull();
  }

  @Test
  void serverCloseReachesTheClientAndEndsBoth() throws Exception {
    UdpServerEndpoint server = server(InetAddress.getByName("127.0.0.1"));
    EchoClientApp app = new EchoClientApp().exchanges(1, 1000);
    UdpClientEndpoint client = client(server, app);
    // Closed once the connection carried data both ways, so that the server has the client's
    // 1-RTT packets and has left the handshake behind (RFC 9000 §10.2.3: a close during the
    // handshake is another case).
    assertThat(await(app.all().get(0).done)).isEqualTo(1000);
    server.close(0, "going away");
    assertThat(await(app.closed)).as("the client heard it from the server").isTrue();
    await(client.terminated());
    await(server.terminated());
    assertThat(client.tryExecute(() -> { })).as("an ended endpoint takes no task").isFalse();
  }

  @Test
  void nothingListeningFailsTheClientWithPortUnreachable() throws Exception {
    int port;
    try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
      port = probe.getLocalPort();
    }
    keys();
    EchoClientApp app = new EchoClientApp();
    UdpClientEndpoint c = UdpClientEndpoint.connect(new InetSocketAddress("127.0.0.1", port),
        clientConfig, app, "test-udp-client");
    endpoints.add(c);
    await(c.terminated());
    assertThat(c.failure()).isInstanceOf(PortUnreachableException.class);
    assertThat(app.handshake.isDone()).isFalse();
  }
}
