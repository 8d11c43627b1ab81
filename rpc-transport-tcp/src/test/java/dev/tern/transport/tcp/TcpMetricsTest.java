package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.MetricsService;
import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.TransportEvents;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the {@code tcp} transport reports to the metrics ({@link TransportEvents}), with a real Tern
 * server and channel on loopback, each given a {@link TernMetrics}: the bytes each side wrote are
 * the bytes the other read, exactly, in plaintext and in TLS; connections over {@code
 * maxConnections}, a client's cancel, and rapid reset each move their own counter and no other; and
 * in a network namespace whose loopback drops packets, a download's retransmissions are counted.
 */
@Timeout(90)
class TcpMetricsTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private Server server(TernMetrics metrics, MetricsService service, boolean tls, int maxConnections)
      throws Exception {
    TernServerBuilder b = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(service.definition()).metrics(metrics, "server");
    if (tls) {
      b.tls(CERTS.server());
    }
    if (maxConnections > 0) {
      b.maxConnections(maxConnections);
    }
    Server s = b.build().start();
    servers.add(s);
    return s;
  }

  private ManagedChannel channel(TernMetrics metrics, Server server, boolean tls) {
    TernChannelBuilder b = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
        .metrics(metrics, "client");
    if (tls) {
      b.tls(CERTS.client());
    } else {
      b.usePlaintext();
    }
    ManagedChannel c = b.build();
    channels.add(c);
    return c;
  }

  private static TransportMetrics server(TernMetrics m) {
    return m.transport(TernMetrics.Side.SERVER, "server", TcpTransportProvider.NAME);
  }

  private static TransportMetrics client(TernMetrics m) {
    return m.transport(TernMetrics.Side.CLIENT, "client", TcpTransportProvider.NAME);
  }

  private static String echo(ManagedChannel channel, String request) {
    return ClientCalls.blockingUnaryCall(channel, MetricsService.ECHO,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request);
  }

  @Test
  void whatOneSideWroteTheOtherReadAndNothingIsRefused() throws Exception {
    bytesMatch(false);
  }

  @Test
  void whatOneSideWroteTheOtherReadOverTls() throws Exception {
    bytesMatch(true);
  }

  private void bytesMatch(boolean tls) throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, new MetricsService(), tls, 0);
    ManagedChannel channel = channel(metrics, server, tls);
    int calls = 20;
    int size = 1000;
    for (int i = 0; i < calls; i++) {
      String request = Integer.toString(i % 10).repeat(size);
      assertThat(echo(channel, request)).isEqualTo(request);
    }
    TransportMetrics s = server(metrics);
    TransportMetrics c = client(metrics);
    // TCP delivers every byte: once the connection is quiet the counts agree exactly.
    await("both directions' counts agree: " + s + " / " + c, () -> c.bytesSent() == s.bytesReceived()
        && s.bytesSent() == c.bytesReceived());
    long payload = (long) calls * size;
    System.out.printf("tcp%s: %d calls of %d bytes: client sent %d, server sent %d%n", tls ? "+tls" : "", calls, size,
        c.bytesSent(), s.bytesSent());
    // Each way: the messages, plus HTTP/2 and gRPC framing, headers (and TLS's handshake and records).
    long overhead = tls ? 12_000 : 6_000;
    assertThat(c.bytesSent()).as("client bytes sent").isBetween(payload, payload + overhead + calls * 150L);
    assertThat(s.bytesSent()).as("server bytes sent").isBetween(payload, payload + overhead + calls * 150L);
    assertThat(s.refusals()).as("server refusals").isEmpty();
    assertThat(c.refusals()).as("client refusals").isEmpty();
    assertThat(s.streamsReset()).isZero();
    assertThat(c.streamsReset()).isZero();
  }

  @Test
  void connectionsOverMaxConnectionsAreRefusedAndCounted() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, new MetricsService(), false, 1);
    ManagedChannel channel = channel(metrics, server, false);
    assertThat(echo(channel, "first")).isEqualTo("first");
    TransportMetrics s = server(metrics);
    int extra = 3;
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < extra; i++) {
        sockets.add(new Socket("127.0.0.1", server.getPort()));
      }
      await("three connections refused", () -> s.refusals(TransportEvents.CONNECTION_LIMIT) == extra);
      for (Socket socket : sockets) {
        socket.setSoTimeout(5000);
        assertThat(socket.getInputStream().read()).as("the server closed the extra connection").isEqualTo(-1);
      }
    } finally {
      for (Socket socket : sockets) {
        socket.close();
      }
    }
    assertThat(echo(channel, "again")).as("the connection already open").isEqualTo("again");
    assertThat(s.refusals(TransportEvents.CONNECTION_LIMIT)).isEqualTo(extra);
    assertThat(s.refusals()).as("no other reason").containsOnlyKeys(TransportEvents.CONNECTION_LIMIT);
    assertThat(s.streamsReset()).isZero();
  }

  @Test
  void aClientsCancelIsAStreamResetOnTheServer() throws Exception {
    cancelIsAReset(false);
  }

  @Test
  void aClientsCancelIsAStreamResetOnTheServerOverTls() throws Exception {
    cancelIsAReset(true);
  }

  private void cancelIsAReset(boolean tls) throws Exception {
    TernMetrics metrics = TernMetrics.create();
    MetricsService service = new MetricsService();
    Server server = server(metrics, service, tls, 0);
    ManagedChannel channel = channel(metrics, server, tls);
    assertThat(echo(channel, "warm")).isEqualTo("warm");
    TransportMetrics s = server(metrics);
    TransportMetrics c = client(metrics);
    ClientCall<String, String> call = channel.newCall(MetricsService.HANG, CallOptions.DEFAULT);
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    call.sendMessage("wait");
    call.halfClose();
    call.request(1);
    assertThat(service.hanging.tryAcquire(10, TimeUnit.SECONDS)).as("the server has the call").isTrue();
    assertThat(s.streamsReset()).isZero();
    call.cancel("enough", null);
    assertThat(closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    await("the server counted the reset", () -> s.streamsReset() == 1);
    await("the server's call ended", () -> s.activeCalls() == 0);
    assertThat(echo(channel, "after")).isEqualTo("after");
    assertThat(s.streamsReset()).as("one reset, one count").isEqualTo(1);
    assertThat(c.streamsReset()).as("the client reset; the server did not").isZero();
    assertThat(s.refusals()).isEmpty();
  }

  @Test
  void aConnectionClosedUnderACallIsNoStreamReset() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, new MetricsService(), false, 0);
    TransportMetrics s = server(metrics);
    try (RapidResetTest.Attacker peer = RapidResetTest.Attacker.connect(server.getPort())) {
      peer.openStream("/" + MetricsService.HANG.getFullMethodName());
      await("the server has the stream", () -> s.activeCalls() == 1);
      peer.closeConnection();
    }
    await("the server's call ended with the connection: " + s, () -> s.activeCalls() == 0 && s.connections() == 0);
    assertThat(s.callsFinished()).isEqualTo(1);
    assertThat(s.streamsReset()).as("no RST_STREAM was sent").isZero();
    assertThat(s.refusals()).isEmpty();
  }

  @Test
  void rapidResetIsCountedOnceAndEachResetAsAStreamReset() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(new MetricsService().definition()).maxRstFramesPerWindow(20, 60).metrics(metrics, "server")
        .build().start();
    servers.add(server);
    ManagedChannel channel = channel(metrics, server, false);
    TransportMetrics s = server(metrics);
    try (RapidResetTest.Attacker attacker = RapidResetTest.Attacker.connect(server.getPort())) {
      attacker.resetsUpToTheLimitThenOneMore(20);
      assertThat(attacker.goAway.get(10, TimeUnit.SECONDS)).isEqualTo((long) RawHttp2Peer.ENHANCE_YOUR_CALM);
      assertThat(attacker.closed.get(10, TimeUnit.SECONDS)).isTrue();
    }
    await("rapid reset counted", () -> s.refusals(TransportEvents.RAPID_RESET) == 1);
    assertThat(s.streamsReset()).as("every RST_STREAM the server read").isEqualTo(21);
    assertThat(echo(channel, "after")).as("another connection's call").isEqualTo("after");
    assertThat(s.refusals(TransportEvents.RAPID_RESET)).as("once per connection").isEqualTo(1);
    assertThat(s.refusals()).containsOnlyKeys(TransportEvents.RAPID_RESET);
  }

  /**
   * Loopback loses nothing; a token bucket on the loopback of a network namespace of its own (made
   * with {@code unshare}: a user namespace maps the caller to root there, so root is not needed
   * where the kernel allows user namespaces) drops what overflows its queue, and TCP retransmits.
   * The Tern server and channel run in a process inside that namespace ({@link TcpLossPeer}).
   */
  @Test
  void aDownloadOverALossyLoopbackCountsRetransmissions() throws Exception {
    Assumptions.assumeTrue(ClientSockets.epollAvailable(), "TCP_INFO (and so retransmissions) needs epoll");
    String setup = "ip link set lo up mtu 1500 && tc qdisc add dev lo root tbf rate 40mbit burst 16kb limit 24kb";
    Process probe = new ProcessBuilder("unshare", "-rn", "sh", "-c", setup).redirectErrorStream(true).start();
    String probeOutput = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    boolean namespaces = probe.waitFor(20, TimeUnit.SECONDS) && probe.exitValue() == 0;
    if (!namespaces) {
      // The tests run as root: there it must work, and a failure must not pass as a skip.
      boolean root = "root".equals(System.getProperty("user.name"));
      String why = "cannot make a lossy loopback with unshare -rn and tc (" + probeOutput.trim() + ")";
      if (root) {
        throw new AssertionError(why);
      }
      Assumptions.assumeTrue(false, why);
    }
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process peer = new ProcessBuilder("unshare", "-rn", "sh", "-c", setup + " && exec \"$0\" -cp \"$1\" "
        + TcpLossPeer.class.getName() + " 4 2000000", javaBin, cp).redirectErrorStream(true).start();
    StringBuilder out = new StringBuilder();
    String counts = null;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        out.append(line).append('\n');
        if (line.startsWith("COUNTS ")) {
          counts = line;
        }
      }
    }
    assertThat(peer.waitFor(60, TimeUnit.SECONDS)).as("the peer ended:\n%s", out).isTrue();
    assertThat(peer.exitValue()).as("the peer's exit:\n%s", out).isZero();
    assertThat(counts).as("the peer's counts:\n%s", out).isNotNull();
    System.out.println("tcp over a lossy loopback: " + counts);
    String[] f = counts.split(" ");
    assertThat(Long.parseLong(f[1])).as("server retransmissions").isPositive();
    assertThat(Long.parseLong(f[3])).as("server streams reset").isZero();
    assertThat(Long.parseLong(f[4])).as("server refusals").isZero();
    assertThat(Long.parseLong(f[5])).as("client refusals").isZero();
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 20 s: " + what);
      }
      Thread.sleep(5);
    }
  }
}
