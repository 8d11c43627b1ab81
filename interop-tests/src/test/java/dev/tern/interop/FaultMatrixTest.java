package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.DatagramRelay;
import dev.tern.conformance.ResourceCheck;
import dev.tern.conformance.TcpRelay;
import dev.tern.conformance.TestCertificates;
import dev.tern.conformance.Utf8;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fault matrix: each fault an operator meets, on each transport it applies to, on real
 * sockets on loopback. Each row checks what the client sees and how long until calls work again,
 * that the metrics ({@link TernMetrics}) show the fault, and that nothing leaked once everything
 * was closed (threads, file descriptors, heap after a full collection). Each row adds a line to
 * {@code target/fault-matrix.md}; docs/fault-matrix.md holds a full run's table.
 *
 * <p>The short version runs in {@code verify}; it leaves out the rows whose fault is found by a
 * timer of 10 s or more (a peer vanishing on tcp and udp, UDP blocked on udp), which it reports as
 * skipped. The full one runs those too, and the storms and floods at their full size: {@code mvn -B -ntp -pl interop-tests -am verify -Dtest=FaultMatrixTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dfaults.full=true}. A client address change needs
 * network namespaces and runs in its own netlab tests (docs/fault-matrix.md).
 */
@Timeout(300)
class FaultMatrixTest {
  private static final boolean FULL = Boolean.getBoolean("faults.full");
  private static final TestCertificates CERTS = TestCertificates.generate();
  private static final Path TABLE = Path.of("target", "fault-matrix.md");
  /** The bound on a fault's detection and on recovery: far below any idle timeout. */
  private static final long BOUND_MILLIS = 15_000;
  private static final long KEEP_ALIVE_MILLIS = 1_000;

  static final MethodDescriptor<String, String> NEVER = unary("Never");
  static final MethodDescriptor<String, String> HOLD = unary("Hold");
  static final MethodDescriptor<String, String> FIREHOSE = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.SERVER_STREAMING).setFullMethodName("tern.test.Faults/Firehose")
      .setRequestMarshaller(Utf8.MARSHALLER).setResponseMarshaller(Utf8.MARSHALLER).build();

  private final byte[] udpKey = UdpTransportOptions.newServerKey();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Server> servers = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<Process> processes = new ArrayList<>();
  private final TernMetrics metrics = TernMetrics.create();
  /** Messages the firehose sent, per call. */
  private final AtomicLong firehoseSent = new AtomicLong();
  private final CompletableFuture<Void> firehoseCancelled = new CompletableFuture<>();
  private ResourceCheck before;
  private Path certFile;
  private Path keyFile;

  private static MethodDescriptor<String, String> unary(String name) {
    return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("tern.test.Faults/" + name)
        .setRequestMarshaller(Utf8.MARSHALLER).setResponseMarshaller(Utf8.MARSHALLER).build();
  }

  @BeforeEach
  void snapshot() {
    before = ResourceCheck.take();
  }

  @AfterEach
  void tearDown() throws Exception {
    timer.shutdownNow();
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (AutoCloseable c : closeables) {
      c.close();
    }
    for (Process p : processes) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    if (certFile != null) {
      Files.deleteIfExists(certFile);
      Files.deleteIfExists(keyFile);
    }
  }

  // ---- the rows ----

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "quic", "udp"})
  void serverKilledAndRestarted(String transport) throws Exception {
    if (transport.equals("quic")) {
      certFile = Files.createTempFile("faults-cert", ".pem");
      keyFile = Files.createTempFile("faults-key", ".pem");
      Files.write(certFile, CERTS.certificatePem());
      Files.write(keyFile, CERTS.privateKeyPem());
    }
    int port = RestartServerProcess.freePort();
    Process server = startServerProcess(transport, port);
    ManagedChannel channel = channel(transport, port, "client", transport);
    TransportMetrics m = clientMetrics(transport);
    Chat chat = new Chat(channel);
    chat.awaitFirstEcho();

    long killedAt = System.nanoTime();
    server.destroyForcibly(); // SIGKILL
    assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Status failed = chat.awaitEnd();
    long failMillis = millisSince(killedAt);
    assertThat(failed.getCode()).as("the call in progress").isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failMillis).isLessThan(BOUND_MILLIS);

    long restartAt = System.nanoTime();
    startServerProcess(transport, port);
    long restartMillis = millisSince(restartAt);
    long callAt = System.nanoTime();
    assertThat(echo(channel, "after the restart")).isEqualTo("after the restart");
    long recoverMillis = millisSince(callAt);
    assertThat(recoverMillis).as("the first call after the restart").isLessThan(BOUND_MILLIS);

    // The metrics show it: the call lost, a second connection, one open now.
    assertThat(m.callsFinished(Status.Code.UNAVAILABLE)).isEqualTo(1);
    assertThat(m.handshakesSucceeded()).isEqualTo(2);
    assertThat(m.connections()).isEqualTo(1);
    assertThat(m.activeCalls()).isZero();
    row("server kill -9 and restart", transport,
        String.format(Locale.ROOT, "call in progress UNAVAILABLE after %d ms; restart took %d ms", failMillis,
            restartMillis),
        recoverMillis + " ms (first call after the restart)",
        "client: calls UNAVAILABLE 1, connections opened 2, open 1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "quic", "udp"})
  void peerVanishes(String transport) throws Exception {
    Assumptions.assumeTrue(FULL || transport.equals("quic"), "the short version leaves out the rows that wait on"
        + " a timer of 10 s or more (tcp's keep-alive floor, udp's dead-peer floor); -Dfaults.full=true runs them");
    Server server = server(transport, 0);
    InetSocketAddress target = new InetSocketAddress("127.0.0.1", port(server));
    TcpRelay tcpRelay = null;
    DatagramRelay udpRelay = null;
    int relayPort;
    if (transport.equals("tcp")) {
      tcpRelay = new TcpRelay(target, 0);
      closeables.add(tcpRelay);
      relayPort = tcpRelay.port();
    } else {
      udpRelay = new DatagramRelay(target);
      closeables.add(udpRelay);
      relayPort = udpRelay.port();
    }
    ManagedChannel channel = channel(transport, relayPort, "client", transport);
    TransportMetrics m = clientMetrics(transport);
    Chat chat = new Chat(channel);
    chat.awaitFirstEcho();

    long cutAt = System.nanoTime();
    if (tcpRelay != null) {
      tcpRelay.blackhole(true);
    } else {
      udpRelay.mode(DatagramRelay.Mode.DROP_BOTH);
    }
    Status failed = chat.awaitEnd();
    long failMillis = millisSince(cutAt);
    System.out.println("FaultMatrix: peer vanishes on " + transport + ": " + failed + " after " + failMillis + " ms");
    assertThat(failed.getCode()).as("the call in progress: " + failed).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failMillis).isLessThan(BOUND_MILLIS + 10_000);
    await(() -> m.connections() == 0, "the client's connection closed");

    if (tcpRelay != null) {
      tcpRelay.blackhole(false);
    } else {
      udpRelay.mode(DatagramRelay.Mode.FORWARD);
    }
    long callAt = System.nanoTime();
    assertThat(echo(channel, "after the path came back")).isEqualTo("after the path came back");
    long recoverMillis = millisSince(callAt);
    assertThat(m.callsFinished(Status.Code.UNAVAILABLE)).isEqualTo(1);
    assertThat(m.handshakesSucceeded()).isEqualTo(2);
    row("peer vanishes (path silent both ways)", transport,
        String.format(Locale.ROOT, "call in progress UNAVAILABLE after %d ms (keep-alive %d ms%s)", failMillis,
            KEEP_ALIVE_MILLIS, transport.equals("tcp") ? ", grpc-netty raises it to 10 s" : ""),
        recoverMillis + " ms (first call once the path is back)",
        "client: calls UNAVAILABLE 1, connection closed, connections opened 2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"quic", "udp"})
  void datagramsBlockedMidCall(String transport) throws Exception {
    Assumptions.assumeTrue(FULL || transport.equals("quic"), "the short version leaves out the rows that wait on"
        + " a timer of 10 s or more (udp's dead-peer floor); -Dfaults.full=true runs them");
    // The datagram transport and tcp behind one relay port number: UDP relayed (and cut), TCP relayed.
    Server server = server(transport, 0);
    // The channel's transports share its security: TLS beside quic, plaintext beside udp.
    Server tcpServer = server("tcp", 0, transport.equals("quic"));
    DatagramRelay udpRelay = null;
    TcpRelay tcpRelay = null;
    for (int attempt = 0; attempt < 20 && tcpRelay == null; attempt++) {
      udpRelay = new DatagramRelay(new InetSocketAddress("127.0.0.1", port(server)));
      try {
        tcpRelay = new TcpRelay(new InetSocketAddress("127.0.0.1", port(tcpServer)), udpRelay.port());
      } catch (IOException taken) {
        udpRelay.close();
      }
    }
    assertThat(tcpRelay).as("a port free for TCP and UDP").isNotNull();
    closeables.add(udpRelay);
    closeables.add(tcpRelay);
    ManagedChannel channel = channel(transport, udpRelay.port(), "client", transport, "tcp");
    TransportMetrics datagram = clientMetrics(transport);
    TransportMetrics tcp = clientMetrics("tcp");
    Chat chat = new Chat(channel);
    chat.awaitFirstEcho();
    assertThat(datagram.callsStarted()).as("the call went on " + transport).isEqualTo(1);

    long cutAt = System.nanoTime();
    udpRelay.mode(DatagramRelay.Mode.DROP_UPSTREAM);
    Status failed = chat.awaitEnd();
    long failMillis = millisSince(cutAt);
    System.out.println("FaultMatrix: datagrams blocked on " + transport + ": " + failed + " after " + failMillis + " ms");
    assertThat(failed.getCode()).as("the call in progress: " + failed).isEqualTo(Status.Code.UNAVAILABLE);
    long callAt = System.nanoTime();
    assertThat(echo(channel, "after the block")).isEqualTo("after the block");
    long recoverMillis = millisSince(callAt);
    assertThat(recoverMillis).isLessThan(BOUND_MILLIS);
    assertThat(tcp.callsFinished(Status.Code.OK)).as("the next call went on tcp").isEqualTo(1);
    assertThat(datagram.callsFinished(Status.Code.UNAVAILABLE)).isEqualTo(1);
    row("UDP blocked mid-call", transport,
        String.format(Locale.ROOT, "call in progress UNAVAILABLE after %d ms; %d datagrams dropped", failMillis,
            udpRelay.dropped()),
        recoverMillis + " ms (next call, on tcp)",
        "client: " + transport + " calls UNAVAILABLE 1; tcp calls OK 1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"quic", "udp"})
  void corruptedDatagrams(String transport) throws Exception {
    Server server = server(transport, 0);
    int port = port(server);
    ManagedChannel channel = channel(transport, port, "client", transport);
    assertThat(echo(channel, "before")).isEqualTo("before");
    TransportMetrics s = serverMetrics(transport);
    long refusedBefore = totalRefusals(s);
    int count = FULL ? 100_000 : 5_000;
    Random random = new Random(42);
    AtomicInteger legitimate = new AtomicInteger();
    CompletableFuture<Void> calls = CompletableFuture.runAsync(() -> {
      for (int i = 0; i < 50; i++) {
        assertThat(echo(channel, "during " + i)).isEqualTo("during " + i);
        legitimate.incrementAndGet();
      }
    });
    long start = System.nanoTime();
    try (DatagramSocket attacker = new DatagramSocket()) {
      byte[] buf = new byte[1200];
      InetSocketAddress to = new InetSocketAddress("127.0.0.1", port);
      for (int i = 0; i < count; i++) {
        int len = 1 + random.nextInt(buf.length);
        random.nextBytes(buf);
        attacker.send(new DatagramPacket(buf, len, to));
        if ((i & 255) == 0) {
          Thread.onSpinWait();
        }
      }
    }
    calls.get(60, TimeUnit.SECONDS);
    long sendMillis = millisSince(start);
    // Datagrams the socket buffer dropped before the server read them are not the server's to count.
    await(() -> totalRefusals(s) - refusedBefore > 0, "the server counted dropped datagrams");
    long refused = totalRefusals(s) - refusedBefore;
    assertThat(refused).isLessThanOrEqualTo(count);
    assertThat(legitimate.get()).isEqualTo(50);
    assertThat(s.callsFinished(Status.Code.OK)).isEqualTo(51);
    row("corrupted datagrams", transport,
        String.format(Locale.ROOT, "%d random datagrams in %d ms beside 50 calls: all 50 OK", count, sendMillis),
        "no interruption",
        "server: refusals +" + refused + " " + s.refusals());
  }

  @Test
  void garbageConnections() throws Exception {
    Server server = server("tcp", 0);
    int port = port(server);
    ManagedChannel channel = channel("tcp", port, "client", "tcp");
    assertThat(echo(channel, "before")).isEqualTo("before");
    TransportMetrics s = serverMetrics("tcp");
    long receivedBefore = s.bytesReceived();
    long openedBefore = s.connectionsOpened();
    int count = FULL ? 2_000 : 200;
    long garbageBytes = 0;
    Random random = new Random(7);
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      try (Socket socket = new Socket("127.0.0.1", port)) {
        byte[] garbage = new byte[64 + random.nextInt(512)];
        random.nextBytes(garbage);
        garbageBytes += garbage.length;
        OutputStream out = socket.getOutputStream();
        out.write(garbage);
        out.flush();
        // Wait for the server to close it: read until end of stream (or a reset).
        socket.setSoTimeout(10_000);
        try {
          while (socket.getInputStream().read() >= 0) {
            // drain what the server says before it closes (a GOAWAY)
          }
        } catch (IOException reset) {
          // closed by the server with a reset
        }
      }
    }
    long millis = millisSince(start);
    assertThat(echo(channel, "after")).isEqualTo("after");
    // None became a connection (grpc-netty's transport filter hears only connections that spoke
    // HTTP/2); the transport's byte count saw them all.
    assertThat(s.connectionsOpened()).isEqualTo(openedBefore);
    assertThat(s.handshakesInProgress()).isZero();
    long received = s.bytesReceived() - receivedBefore;
    assertThat(received).as("bytes the tcp transport counted in").isGreaterThanOrEqualTo(garbageBytes);
    row("garbage connections", "tcp",
        String.format(Locale.ROOT, "%d connections of random bytes, each closed by the server (%d ms in all); "
            + "calls beside them OK", count, millis),
        "no interruption",
        "server: bytes received +" + received + " (" + garbageBytes + " of garbage); no connection opened");
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "quic", "udp"})
  void streamLimitBurst(String transport) throws Exception {
    Server server = server(transport, 0);
    ManagedChannel channel = channel(transport, port(server), "client", transport);
    assertThat(echo(channel, "warm")).isEqualTo("warm");
    int calls = 1_200;
    long start = System.nanoTime();
    List<CompletableFuture<Status>> done = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      done.add(unaryStatus(channel, HOLD, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS), "burst"));
    }
    Map<Status.Code, Integer> codes = tally(done, 120);
    long millis = millisSince(start);
    assertThat(codes).as("1,200 calls against a 1,000-stream limit").containsExactly(Map.entry(Status.Code.OK, calls));
    TransportMetrics s = serverMetrics(transport);
    assertThat(s.callsFinished(Status.Code.OK)).isEqualTo(calls + 1);
    row("stream-limit burst", transport,
        String.format(Locale.ROOT, "1,200 concurrent calls over a 1,000-stream limit: all OK in %d ms", millis),
        "no interruption", "server: calls OK " + (calls + 1) + ", refusals " + s.refusals());
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "quic", "udp"})
  void deadlineStorm(String transport) throws Exception {
    Server server = server(transport, 0);
    ManagedChannel channel = channel(transport, port(server), "client", transport);
    assertThat(echo(channel, "warm")).isEqualTo("warm");
    int calls = FULL ? 10_000 : 2_000;
    Semaphore inFlight = new Semaphore(500);
    long start = System.nanoTime();
    List<CompletableFuture<Status>> done = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      inFlight.acquire();
      CompletableFuture<Status> f = unaryStatus(channel, NEVER, CallOptions.DEFAULT.withDeadlineAfter(1,
          TimeUnit.MILLISECONDS), "storm");
      f.whenComplete((st, e) -> inFlight.release());
      done.add(f);
    }
    Map<Status.Code, Integer> codes = tally(done, 120);
    long millis = millisSince(start);
    assertThat(codes).as(calls + " calls with a 1 ms deadline").containsExactly(
        Map.entry(Status.Code.DEADLINE_EXCEEDED, calls));
    TransportMetrics s = serverMetrics(transport);
    await(() -> s.activeCalls() == 0, "the server's calls all ended");
    long callAt = System.nanoTime();
    String afterStorm = echoAfterStorm(channel);
    long recoverMillis = millisSince(callAt);
    long clientDeadlines = clientMetricsTotal(Status.Code.DEADLINE_EXCEEDED);
    assertThat(clientDeadlines).isEqualTo(calls);
    row("deadline storm", transport,
        String.format(Locale.ROOT, "%d calls with a 1 ms deadline, 500 in flight: all DEADLINE_EXCEEDED, none "
            + "UNAVAILABLE (%d ms)", calls, millis),
        recoverMillis + " ms (next call" + afterStorm + ")",
        "client: DEADLINE_EXCEEDED " + clientDeadlines + "; server: active 0, started " + s.callsStarted());
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "quic", "udp"})
  void cancellationStorm(String transport) throws Exception {
    Server server = server(transport, 0);
    ManagedChannel channel = channel(transport, port(server), "client", transport);
    assertThat(echo(channel, "warm")).isEqualTo("warm");
    int calls = FULL ? 10_000 : 2_000;
    TransportMetrics s = serverMetrics(transport);
    long resetBefore = s.streamsReset();
    long start = System.nanoTime();
    List<CompletableFuture<Status>> done = new ArrayList<>();
    Semaphore inFlight = new Semaphore(500);
    for (int i = 0; i < calls; i++) {
      inFlight.acquire();
      ClientCall<String, String> call = channel.newCall(NEVER, CallOptions.DEFAULT);
      CompletableFuture<Status> f = start(call, "cancel me");
      f.whenComplete((st, e) -> inFlight.release());
      done.add(f);
      if ((i & 1) == 0) {
        call.cancel("cancelled at once", null);
      } else {
        timer.schedule(() -> call.cancel("cancelled after 2 ms", null), 2, TimeUnit.MILLISECONDS);
      }
    }
    Map<Status.Code, Integer> codes = tally(done, 120);
    long millis = millisSince(start);
    assertThat(codes).containsExactly(Map.entry(Status.Code.CANCELLED, calls));
    await(() -> s.activeCalls() == 0, "the server's calls all ended");
    long reset = s.streamsReset() - resetBefore;
    long callAt = System.nanoTime();
    String afterStorm = echoAfterStorm(channel);
    long recoverMillis = millisSince(callAt);
    assertThat(clientMetricsTotal(Status.Code.CANCELLED)).isEqualTo(calls);
    // Every call of the storm that reached the server ended there, none as OK (the echoes are). A
    // stream the client reset before its first frame left can still reach the server after the
    // echo (its RESET opens it there), so the server's count settles eventually, not at once.
    await(() -> s.callsFinished() == s.callsStarted(), "every call the server saw ended");
    Map<Status.Code, Long> serverCodes = finishedByCode(s);
    long echoes = s.callsFinished(Status.Code.OK);
    assertThat(echoes).as("server calls by code: " + serverCodes).isBetween(2L, 3L);
    // A client's cancellation reaches the server as CANCELLED, never as a failure of its own.
    assertThat(serverCodes.keySet()).as("server calls by code").containsOnly(Status.Code.OK, Status.Code.CANCELLED);
    row("cancellation storm", transport,
        String.format(Locale.ROOT, "%d calls cancelled at once or after 2 ms: all CANCELLED (%d ms)", calls, millis),
        recoverMillis + " ms (next call" + afterStorm + ")",
        "server: storm calls seen " + (s.callsStarted() - echoes) + ", ended " + serverCodes
            + " (OK: the echoes); streams reset by the client +" + reset + "; active 0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "quic", "udp"})
  void slowReader(String transport) throws Exception {
    Server server = server(transport, 0);
    ManagedChannel channel = channel(transport, port(server), "client", transport);
    ClientCall<String, String> call = channel.newCall(FIREHOSE, CallOptions.DEFAULT);
    CountDownLatch first = new CountDownLatch(1);
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(new ClientCall.Listener<String>() {
      @Override public void onMessage(String message) {
        first.countDown();
      }

      @Override public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    call.sendMessage("go");
    call.halfClose();
    call.request(1);
    assertThat(first.await(30, TimeUnit.SECONDS)).isTrue();
    // The client reads nothing more: the server must stop at flow control, not buffer without end.
    awaitSteady(firehoseSent, Duration.ofSeconds(2));
    long sent = firehoseSent.get();
    long sentBytes = sent * FIREHOSE_MESSAGE.length();
    TransportMetrics s = serverMetrics(transport);
    long resetBefore = s.streamsReset();
    call.cancel("the reader gave up", null);
    assertThat(closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    firehoseCancelled.get(10, TimeUnit.SECONDS);
    await(() -> s.activeCalls() == 0, "the server's call ended");
    await(() -> s.streamsReset() > resetBefore, "the server counted the client's reset");
    // Flow control bounds what is in flight: the stream's window (1 MiB by default) plus socket
    // buffers on tcp and udp, plus what each transport lets an application queue before isReady()
    // turns false.
    assertThat(sentBytes).as("bytes the server sent to a reader that stopped").isLessThan(8L << 20);
    row("slow reader", transport,
        String.format(Locale.ROOT, "the server stopped after %d KiB sent to a reader that took one message", sentBytes
            >> 10),
        "cancel ends the call at once",
        "server: streams reset +" + (s.streamsReset() - resetBefore) + ", active 0");
  }

  // ---- the row's end: leaks, and the table ----

  private void row(String fault, String transport, String clientSees, String recovery, String metricsShow)
      throws Exception {
    timer.shutdownNow();
    assertThat(timer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    channels.clear();
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    servers.clear();
    for (Process p : processes) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    processes.clear();
    for (AutoCloseable c : closeables) {
      c.close();
    }
    closeables.clear();
    ResourceCheck.Result leaks = before.compare(FaultMatrixTest::sharedThread, Duration.ofSeconds(15), 24,
        64L << 20);
    String line = String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", fault, transport, clientSees,
        recovery, metricsShow, leaks.summary());
    System.out.print("FaultMatrix " + line);
    Files.createDirectories(TABLE.getParent());
    Files.writeString(TABLE, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    assertThat(leaks.problems()).as("leaks after " + fault + " on " + transport).isEmpty();
  }

  /**
   * Threads made once per process and shared by every channel and server: grpc-java's, released
   * on its own schedule; OpenCensus's exporter and disruptor, started once by grpc-java's census
   * module on first use; and the termination waiters of the tcp transport (idle daemon threads of
   * a cached pool). Tern's own transport threads are not listed: they must end with their last
   * channel or server.
   */
  private static boolean sharedThread(Thread t) {
    String name = t.getName();
    return name.startsWith("grpc-") || name.startsWith("tern-tcp-termination-")
        || name.startsWith("tern-grpc-termination-") || name.startsWith("OpenCensus.")
        || name.startsWith("ExportComponent.");
  }

  // ---- servers, channels, calls ----

  static final String FIREHOSE_MESSAGE = "x".repeat(16 * 1024);

  private ServerServiceDefinition service() {
    ServerServiceDefinition restart = RestartServerMain.service();
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder("tern.test.Faults")
        .addMethod(NEVER, ServerCalls.asyncUnaryCall((request, response) -> { }))
        .addMethod(HOLD, ServerCalls.asyncUnaryCall((request, response) -> {
          timer.schedule(() -> {
            response.onNext(request);
            response.onCompleted();
          }, 300, TimeUnit.MILLISECONDS);
        }))
        .addMethod(FIREHOSE, ServerCalls.asyncServerStreamingCall((request, response) -> {
          ServerCallStreamObserver<String> out = (ServerCallStreamObserver<String>) response;
          out.setOnCancelHandler(() -> firehoseCancelled.complete(null));
          out.setOnReadyHandler(() -> {
            while (out.isReady() && !out.isCancelled()) {
              out.onNext(FIREHOSE_MESSAGE);
              firehoseSent.incrementAndGet();
            }
          });
        }));
    return b.build();
  }

  private Server server(String transport, int port) throws IOException {
    return server(transport, port, transport.equals("quic"));
  }

  private Server server(String transport, int port, boolean tls) throws IOException {
    TernServerBuilder b = TernServerBuilder.create().listen(transport, new InetSocketAddress("127.0.0.1", port))
        .addService(service()).addService(RestartServerMain.service())
        .permitKeepAliveTime(KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS).permitKeepAliveWithoutCalls(true)
        .metrics(metrics, "server");
    if (tls) {
      b.tls(CERTS.server());
    }
    if (transport.equals("udp")) {
      b.transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpKey);
    }
    Server s = b.build().start();
    servers.add(s);
    return s;
  }

  private static int port(Server server) {
    return server.getPort();
  }

  private ManagedChannel channel(String transport, int port, String name, String... transports) {
    boolean quic = List.of(transports).contains("quic");
    TernChannelBuilder b = TernChannelBuilder.forAddress(quic ? "localhost" : "127.0.0.1", port)
        .transports(transports).keepAliveTime(KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS)
        .keepAliveTimeout(KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS).metrics(metrics, name);
    if (quic) {
      b.tls(CERTS.client());
    } else {
      b.usePlaintext();
    }
    if (List.of(transports).contains("udp")) {
      b.transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(udpKey));
    }
    ManagedChannel c = b.build();
    channels.add(c);
    return c;
  }

  private TransportMetrics clientMetrics(String transport) {
    return metrics.transport(TernMetrics.Side.CLIENT, "client", transport);
  }

  private TransportMetrics serverMetrics(String transport) {
    return metrics.transport(TernMetrics.Side.SERVER, "server", transport);
  }

  /** Calls the client finished with {@code code} on every transport and on none. */
  private long clientMetricsTotal(Status.Code code) {
    long n = 0;
    for (TransportMetrics m : metrics.transports()) {
      if (m.side() == TernMetrics.Side.CLIENT) {
        n += m.callsFinished(code);
      }
    }
    return n;
  }

  private static Map<Status.Code, Long> finishedByCode(TransportMetrics m) {
    Map<Status.Code, Long> out = new EnumMap<>(Status.Code.class);
    for (Status.Code c : Status.Code.values()) {
      if (m.callsFinished(c) > 0) {
        out.put(c, m.callsFinished(c));
      }
    }
    return out;
  }

  private static long totalRefusals(TransportMetrics m) {
    long n = 0;
    for (long v : m.refusals().values()) {
      n += v;
    }
    return n;
  }

  private static String echo(ManagedChannel channel, String text) {
    return ClientCalls.blockingUnaryCall(channel, RestartServerMain.ECHO,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), text);
  }

  /**
   * The first call after a storm of resets: the server's reset limit (rapid-reset defence:
   * grpc-java's {@code maxRstFramesPerWindow} on tcp, the stream-churn limit on quic) may have
   * closed the connection the storm ran on, and a call that raced that close fails with the
   * server's reason; the call after it must then succeed on a new connection. Returns what
   * happened, for the table.
   */
  /**
   * The first call after a storm works. A storm may pass the server's rapid-reset limit; the
   * server then drains the connection rather than cut it, so no call of the client's fails for
   * it: this call goes out on a new connection, or on the old one until the GOAWAY arrives (and is
   * then sent again, unprocessed).
   */
  private static String echoAfterStorm(ManagedChannel channel) {
    assertThat(echo(channel, "after the storm")).as("the first call after the storm").isEqualTo("after the storm");
    return "";
  }

  private static CompletableFuture<Status> unaryStatus(ManagedChannel channel, MethodDescriptor<String, String> method,
      CallOptions options, String request) {
    return start(channel.newCall(method, options), request);
  }

  private static CompletableFuture<Status> start(ClientCall<String, String> call, String request) {
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(new ClientCall.Listener<String>() {
      @Override public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    call.sendMessage(request);
    call.halfClose();
    call.request(1);
    return closed;
  }

  /** The calls' status codes and how often each came; prints one description per code. */
  private static Map<Status.Code, Integer> tally(List<CompletableFuture<Status>> calls, long seconds)
      throws Exception {
    CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(seconds, TimeUnit.SECONDS);
    Map<Status.Code, Integer> codes = new EnumMap<>(Status.Code.class);
    for (CompletableFuture<Status> f : calls) {
      Status st = f.get();
      if (codes.merge(st.getCode(), 1, Integer::sum) == 1) {
        System.out.println("FaultMatrix: first " + st.getCode() + ": " + st.getDescription()
            + (st.getCause() == null ? "" : " (" + st.getCause() + ")"));
      }
    }
    return codes;
  }

  /** A bidi call that sends a message every 100 ms and expects each echoed. */
  private final class Chat {
    final CompletableFuture<String> firstEcho = new CompletableFuture<>();
    final CompletableFuture<Status> ended = new CompletableFuture<>();

    Chat(ManagedChannel channel) {
      StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(
          channel.newCall(RestartServerMain.CHAT, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS)),
          new StreamObserver<String>() {
            @Override public void onNext(String value) {
              firstEcho.complete(value);
            }

            @Override public void onError(Throwable t) {
              ended.complete(Status.fromThrowable(t));
            }

            @Override public void onCompleted() {
              ended.complete(Status.OK);
            }
          });
      AtomicInteger sent = new AtomicInteger();
      timer.scheduleAtFixedRate(() -> {
        if (!ended.isDone()) {
          try {
            requests.onNext("message " + sent.incrementAndGet());
          } catch (RuntimeException e) {
            ended.complete(Status.fromThrowable(e));
          }
        }
      }, 0, 100, TimeUnit.MILLISECONDS);
    }

    void awaitFirstEcho() throws Exception {
      assertThat(firstEcho.get(30, TimeUnit.SECONDS)).startsWith("message ");
    }

    Status awaitEnd() throws Exception {
      return ended.get(60, TimeUnit.SECONDS);
    }
  }

  // ---- server processes (for kill -9) ----


  /** Starts the server process and waits until it listens; killed at the end of the test. */
  private Process startServerProcess(String transport, int port) throws Exception {
    Process process = RestartServerProcess.start(transport, port, certFile, keyFile, udpKey);
    processes.add(process);
    return process;
  }

  // ---- waiting ----

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within 30 s: " + what);
      }
      Thread.sleep(10);
    }
  }

  /** Waits until {@code counter} has not moved for {@code quiet}. */
  private static void awaitSteady(AtomicLong counter, Duration quiet) throws InterruptedException {
    long last = -1;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < end) {
      long now = counter.get();
      if (now == last) {
        return;
      }
      last = now;
      Thread.sleep(quiet.toMillis());
    }
    throw new AssertionError("the server kept sending to a reader that stopped: " + counter.get() + " messages");
  }
}
