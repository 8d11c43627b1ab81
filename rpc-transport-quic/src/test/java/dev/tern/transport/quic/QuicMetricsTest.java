package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.MetricsService;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the {@code quic} transport reports to the metrics ({@link TransportEvents}), with a real Tern
 * server and channel on loopback, each given a {@link TernMetrics}: the datagram bytes each side
 * sent are the bytes the other received, exactly; and each fault moves its own counter and no
 * other: connections over {@code maxConnections}, a handshake over the handshake cap, a Retry, a
 * forged token, junk datagrams, a datagram for no connection, a client's cancel, rapid reset, lost
 * packets under injected loss, and a resumed connection's 0-RTT.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuicMetricsTest {
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
      assertThat(s.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  private Server server(TernMetrics metrics, MetricsService service, UnaryOperator<TernServerBuilder> config)
      throws Exception {
    Server s = config.apply(TernServerBuilder.create().addTransportProvider(new QuicTransportProvider())
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server()).addService(service.definition()).metrics(metrics, "server"))
        .build().start();
    servers.add(s);
    return s;
  }

  private static InetSocketAddress address(Server server) {
    return (InetSocketAddress) server.getListenSockets().get(0);
  }

  private ManagedChannel channel(TernMetrics metrics, String name, InetSocketAddress to) {
    ManagedChannel c = TernChannelBuilder.forAddress(to).addTransportProvider(new QuicTransportProvider())
        .transports(QuicTransportProvider.NAME).overrideAuthority("localhost:" + to.getPort())
        .tls(TestCertificates.client()).metrics(metrics, name).build();
    channels.add(c);
    return c;
  }

  private static TransportMetrics server(TernMetrics m) {
    return m.transport(TernMetrics.Side.SERVER, "server", QuicTransportProvider.NAME);
  }

  private static TransportMetrics client(TernMetrics m, String name) {
    return m.transport(TernMetrics.Side.CLIENT, name, QuicTransportProvider.NAME);
  }

  private static String call(ManagedChannel channel, MethodDescriptor<String, String> method, String request) {
    return ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
        request);
  }

  @Test
  void theDatagramBytesOneSideSentTheOtherReceivedAndNothingIsRefused() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, new MetricsService(), b -> b);
    ManagedChannel channel = channel(metrics, "client", address(server));
    int calls = 20;
    int size = 1000;
    for (int i = 0; i < calls; i++) {
      String request = Integer.toString(i % 10).repeat(size);
      assertThat(call(channel, MetricsService.ECHO, request)).isEqualTo(request);
    }
    TransportMetrics s = server(metrics);
    TransportMetrics c = client(metrics, "client");
    // Loopback drops no datagram: once the connection is quiet (acknowledgements sent) they agree.
    await("both directions' counts agree: " + s + " / " + c, () -> c.bytesSent() == s.bytesReceived()
        && s.bytesSent() == c.bytesReceived());
    long payload = (long) calls * size;
    System.out.printf("quic: %d calls of %d bytes: client sent %d, server sent %d%n", calls, size, c.bytesSent(),
        s.bytesSent());
    // Each way: the messages, plus the handshake (certificate, padded Initials), HTTP/3 and QUIC
    // framing, acknowledgements.
    assertThat(c.bytesSent()).as("client bytes sent").isBetween(payload, payload + 20_000 + calls * 300L);
    assertThat(s.bytesSent()).as("server bytes sent").isBetween(payload, payload + 20_000 + calls * 300L);
    assertThat(s.refusals()).as("server refusals").isEmpty();
    assertThat(c.refusals()).as("client refusals").isEmpty();
    assertThat(s.streamsReset()).isZero();
    assertThat(c.streamsReset()).isZero();
    assertThat(s.retriesSent()).isZero();
  }

  @Test
  void connectionsOverMaxConnectionsAreRefusedAndCounted() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, new MetricsService(),
        b -> b.transportOption(TransportOptions.MAX_CONNECTIONS, 1));
    ManagedChannel first = channel(metrics, "first", address(server));
    assertThat(call(first, MetricsService.ECHO, "one")).isEqualTo("one");
    TransportMetrics s = server(metrics);
    int refused = 2;
    for (int i = 0; i < refused; i++) {
      ManagedChannel other = channel(metrics, "other" + i, address(server));
      StatusRuntimeException e = org.assertj.core.api.Assertions.catchThrowableOfType(
          () -> call(other, MetricsService.ECHO, "two"), StatusRuntimeException.class);
      assertThat(e).isNotNull();
      assertThat(e.getStatus().getDescription()).contains("CONNECTION_REFUSED");
      other.shutdownNow();
      assertThat(other.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(call(first, MetricsService.ECHO, "again")).as("the connection already open").isEqualTo("again");
    // One refused connection per attempt: a call that met its transport already closed by the
    // refusal is sent again once, on a new connection, which is refused too.
    long connectionsRefused = s.refusals(TransportEvents.CONNECTION_LIMIT);
    assertThat(connectionsRefused).isBetween((long) refused, 2L * refused);
    // Over a limit, a client's first Initial is answered with a Retry before it is refused.
    assertThat(s.retriesSent()).isEqualTo(connectionsRefused);
    assertThat(s.refusals()).as("no other reason").containsOnlyKeys(TransportEvents.CONNECTION_LIMIT);
  }

  @Test
  void aHandshakeOverTheHandshakeCapIsRefusedAndCounted() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    // One handshake at a time; every client proves its address first (Retry above 0 handshakes).
    Server server = server(metrics, new MetricsService(), b -> b
        .transportOption(QuicTransportOptions.MAX_HANDSHAKES, 1));
    TransportMetrics s = server(metrics);
    try (UdpRelay relay = new UdpRelay(address(server))) {
      // A client that follows the Retry, then never hears the handshake's answer: half-open.
      relay.forwardServerDatagrams(1);
      ManagedChannel stuck = channel(metrics, "stuck", relay.address());
      ClientCalls.futureUnaryCall(stuck.newCall(MetricsService.ECHO,
          CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)), "never");
      await("one half-open handshake", () -> s.handshakesInProgress() == 1 && s.retriesSent() == 1);

      ManagedChannel refused = channel(metrics, "refused", address(server));
      StatusRuntimeException e = org.assertj.core.api.Assertions.catchThrowableOfType(
          () -> call(refused, MetricsService.ECHO, "over the cap"), StatusRuntimeException.class);
      // The client learns it as CONNECTION_REFUSED, or as its connect failing when the close wins.
      assertThat(e).isNotNull();
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      refused.shutdownNow();
      assertThat(refused.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(s.refusals(TransportEvents.HANDSHAKE_LIMIT)).isEqualTo(1);
      assertThat(s.retriesSent()).as("each client's first Initial").isEqualTo(2);
      assertThat(s.refusals()).as("no other reason").containsOnlyKeys(TransportEvents.HANDSHAKE_LIMIT);

      // Once the half-open one is gone, a client gets in.
      stuck.shutdownNow();
      assertThat(stuck.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void withRetryForcedEveryConnectionCostsOneRetry() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, new MetricsService(),
        b -> b.transportOption(QuicTransportOptions.RETRY_ABOVE_HANDSHAKES, 0));
    TransportMetrics s = server(metrics);
    for (int i = 0; i < 2; i++) {
      ManagedChannel channel = channel(metrics, "client" + i, address(server));
      assertThat(call(channel, MetricsService.ECHO, "proved")).isEqualTo("proved");
      assertThat(s.retriesSent()).as("Retries after %d connections", i + 1).isEqualTo(i + 1);
    }
    assertThat(s.refusals()).isEmpty();
  }

  @Test
  void forgedTokensJunkAndDatagramsForNoConnectionEachMoveTheirOwnReason() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, new MetricsService(), b -> b);
    InetSocketAddress to = address(server);
    TransportMetrics s = server(metrics);
    List<byte[]> hellos;
    try (ClientHellos maker = new ClientHellos()) {
      hellos = maker.make(3, to);
    }
    SplittableRandom random = new SplittableRandom(20261206L);
    try (DatagramChannel udp = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
      // Real ClientHellos with a token no server minted (RFC 9000 §8.1.3): dropped, counted.
      for (byte[] hello : hellos) {
        udp.send(ByteBuffer.wrap(withToken(hello, random)), to);
      }
      await("forged tokens", () -> s.refusals(TransportEvents.INVALID_TOKEN) == hellos.size());
      // Junk: a version 1 long header with a 200-byte connection ID (RFC 9000 §17.2), an Initial in
      // a datagram under 1200 bytes (§14.1), and three bytes.
      byte[] longId = randomBytes(random, 1300);
      longId[0] = (byte) 0xc0;
      longId[1] = 0;
      longId[2] = 0;
      longId[3] = 0;
      longId[4] = 1;
      longId[5] = (byte) 200;
      byte[] shortInitial = longId.clone();
      shortInitial[5] = 8;
      udp.send(ByteBuffer.wrap(longId), to);
      udp.send(ByteBuffer.wrap(shortInitial, 0, 300), to);
      udp.send(ByteBuffer.wrap(new byte[] {(byte) 0xc3, 0, 0}), to);
      await("junk", () -> s.refusals(TransportEvents.MALFORMED) == 3);
      // A short-header packet for a connection ID this server never issued (RFC 9000 §10.3).
      byte[] stray = randomBytes(random, 100);
      stray[0] = (byte) (0x40 | (stray[0] & 0x3f));
      udp.send(ByteBuffer.wrap(stray), to);
      await("datagram for no connection", () -> s.refusals(TransportEvents.UNKNOWN_CONNECTION) == 1);
    }
    // A legitimate call still works, and none of it was refused.
    ManagedChannel channel = channel(metrics, "client", to);
    assertThat(call(channel, MetricsService.ECHO, "fine")).isEqualTo("fine");
    assertThat(s.refusals()).containsOnly(
        org.assertj.core.api.Assertions.entry(TransportEvents.INVALID_TOKEN, 3L),
        org.assertj.core.api.Assertions.entry(TransportEvents.MALFORMED, 3L),
        org.assertj.core.api.Assertions.entry(TransportEvents.UNKNOWN_CONNECTION, 1L));
    assertThat(s.retriesSent()).isZero();
  }

  /**
   * {@code hello} (an Initial without a token) with a random 40-byte token in its header (RFC 9000
   * §17.2.2: after the source connection ID, a variable-length token length, then the token).
   */
  private static byte[] withToken(byte[] hello, SplittableRandom random) {
    int dcidLength = hello[5] & 0xff;
    int scidLengthAt = 6 + dcidLength;
    int tokenLengthAt = scidLengthAt + 1 + (hello[scidLengthAt] & 0xff);
    assertThat(hello[tokenLengthAt]).as("a token-less Initial").isEqualTo((byte) 0);
    byte[] token = randomBytes(random, 40);
    byte[] out = new byte[hello.length + token.length];
    System.arraycopy(hello, 0, out, 0, tokenLengthAt);
    out[tokenLengthAt] = (byte) token.length; // under 64: a one-byte variable-length integer (§16)
    System.arraycopy(token, 0, out, tokenLengthAt + 1, token.length);
    System.arraycopy(hello, tokenLengthAt + 1, out, tokenLengthAt + 1 + token.length,
        hello.length - tokenLengthAt - 1);
    return out;
  }

  private static byte[] randomBytes(SplittableRandom random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  @Test
  void aClientsCancelIsAStreamResetOnTheServer() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    MetricsService service = new MetricsService();
    Server server = server(metrics, service, b -> b);
    ManagedChannel channel = channel(metrics, "client", address(server));
    assertThat(call(channel, MetricsService.ECHO, "warm")).isEqualTo("warm");
    TransportMetrics s = server(metrics);
    TransportMetrics c = client(metrics, "client");
    ClientCall<String, String> hang = channel.newCall(MetricsService.HANG, CallOptions.DEFAULT);
    CompletableFuture<Status> closed = new CompletableFuture<>();
    hang.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    hang.sendMessage("wait");
    hang.halfClose();
    hang.request(1);
    assertThat(service.hanging.tryAcquire(10, TimeUnit.SECONDS)).as("the server has the call").isTrue();
    assertThat(s.streamsReset()).isZero();
    hang.cancel("enough", null);
    assertThat(closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    await("the server counted the reset", () -> s.streamsReset() == 1);
    await("the server's call ended", () -> s.activeCalls() == 0);
    assertThat(call(channel, MetricsService.ECHO, "after")).isEqualTo("after");
    assertThat(s.streamsReset()).as("RESET_STREAM and STOP_SENDING of one cancel: one count").isEqualTo(1);
    assertThat(c.streamsReset()).as("the client reset; the server did not").isZero();
    assertThat(s.refusals()).isEmpty();
  }

  @Test
  void rapidResetIsCountedOnce() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    MetricsService service = new MetricsService();
    int limit = 5;
    Server server = server(metrics, service, b -> b.maxRstFramesPerWindow(limit, 60));
    ManagedChannel channel = channel(metrics, "client", address(server));
    assertThat(call(channel, MetricsService.ECHO, "warm")).isEqualTo("warm");
    TransportMetrics s = server(metrics);
    // Calls the server has not answered, each cancelled: resets before the answer, one past the limit.
    for (int i = 0; i <= limit; i++) {
      ClientCall<String, String> hang = channel.newCall(MetricsService.HANG, CallOptions.DEFAULT);
      CompletableFuture<Status> closed = new CompletableFuture<>();
      hang.start(new ClientCall.Listener<>() {
        @Override
        public void onClose(Status status, Metadata trailers) {
          closed.complete(status);
        }
      }, new Metadata());
      hang.sendMessage("wait");
      hang.halfClose();
      assertThat(service.hanging.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
      hang.cancel("reset " + i, null);
      closed.get(10, TimeUnit.SECONDS);
      int resets = i + 1;
      await("reset " + resets + " counted", () -> s.streamsReset() == resets);
    }
    await("rapid reset counted", () -> s.refusals(TransportEvents.RAPID_RESET) == 1);
    assertThat(s.streamsReset()).isEqualTo(limit + 1);
    assertThat(s.refusals()).containsOnlyKeys(TransportEvents.RAPID_RESET);
  }

  @Test
  void aDownloadUnderLossCountsLostPacketsByTheTimeTheConnectionHasClosed() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    // The loss is on the server's socket, both ways: the client's one CONNECTION_CLOSE is lost
    // one time in twenty, and the server then ends the connection at its idle timeout (RFC 9000
    // §10.1), 60 s by default; 3 s here keeps that case within the wait below.
    Server server = server(metrics, new MetricsService(), b -> b
        .transportOption(QuicTransportOptions.IMPAIRMENT, DatagramImpairment.loss(0.05, 20261206L))
        .transportOption(QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, 3_000L));
    ManagedChannel channel = channel(metrics, "client", address(server));
    int size = 2_000_000;
    assertThat(call(channel, MetricsService.DOWNLOAD, Integer.toString(size))).hasSize(size);
    TransportMetrics s = server(metrics);
    TransportMetrics c = client(metrics, "client");
    channel.shutdown();
    assertThat(channel.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    await("the server's connection ended", () -> s.connectionsOpened() == 1 && s.connections() == 0);
    System.out.printf("quic under 5%% loss: server lost %d packets, client %d; server sent %d bytes, client"
        + " received %d%n", s.retransmissions(), c.retransmissions(), s.bytesSent(), c.bytesReceived());
    assertThat(s.retransmissions()).as("packets the server declared lost").isPositive();
    // The impairment drops on the server's socket: the server sent what the client never received.
    assertThat(s.bytesSent()).isGreaterThan(c.bytesReceived()).isGreaterThan(size);
    assertThat(s.refusals()).isEmpty();
    assertThat(s.streamsReset()).isZero();
  }

  @Test
  void aResumedConnectionsEarlyDataIsCountedAcceptedOnTheServer() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    MethodDescriptor<String, String> idempotent = MetricsService.IDEMPOTENT_ECHO;
    // 20 ms one-way delay into the server: on bare loopback a handshake can finish before the call
    // layer even opens the call's stream, and there would be nothing to send early.
    Server server = server(metrics, new MetricsService(), b -> b.transportOption(QuicTransportOptions.IMPAIRMENT,
        DatagramImpairment.of(0, 0, 0, 1).withInboundDelayMillis(20)));
    TransportMetrics s = server(metrics);
    ManagedChannel cold = channel(metrics, "cold", address(server));
    assertThat(call(cold, idempotent, "full handshake")).isEqualTo("full handshake");
    cold.shutdown();
    assertThat(cold.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(s.earlyDataAccepted()).as("a full handshake has no early data").isZero();

    ManagedChannel warm = channel(metrics, "warm", address(server));
    assertThat(call(warm, idempotent, "resumed")).isEqualTo("resumed");
    assertThat(call(warm, idempotent, "later")).isEqualTo("later");
    assertThat(s.earlyDataAccepted()).as("the resumed connection's early data, once").isEqualTo(1);
    assertThat(s.earlyDataRejected()).isZero();
    // Neither quiche nor Netty tells a client whether the server took its 0-RTT data.
    assertThat(client(metrics, "warm").earlyDataAccepted()).isZero();
    assertThat(client(metrics, "warm").earlyDataRejected()).isZero();
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 15 s: " + what);
      }
      Thread.sleep(5);
    }
  }
}
