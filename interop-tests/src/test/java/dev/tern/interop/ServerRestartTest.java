package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server killed with SIGKILL and started again on the same port, on each transport, with real
 * processes and sockets on loopback. One channel has a call in progress (a stream on which the
 * client sends a message every 100 ms and the server echoes it); a second channel made one call
 * and then stayed idle. The call in progress must fail UNAVAILABLE soon after the kill (not at
 * the 60 s idle timeout of QUIC or the 30 s of udp), and after the restart a call on each channel
 * must succeed at once (within 1 s on an idle machine; asserted with 5 s for a loaded one).
 *
 * <p>The idle channel runs with a keep-alive interval of 1 s, which on {@code quic} and {@code
 * udp} is also how long a connection may stay quiet before a call checks it with a probe first
 * (docs/quic.md, docs/protocol.md §10.7): its connection outlived the server, which restarted
 * without its state, and only that check lets the call go to a new connection rather than into
 * the silence. The test waits until that channel has been quiet for over two intervals. A third
 * channel keeps the default settings (a 15 s keep-alive interval, longer than the restart) and is
 * quiet for 1.5 s before the kill: its connection is not checked, its call goes to the restarted
 * server, and on {@code quic} and {@code udp} only that server's stateless reset with its proof of
 * when it started (docs/quic.md, docs/protocol.md §8) lets the call go again on a new connection
 * instead of failing.
 */
@Timeout(180)
class ServerRestartTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  /** The bound on each measured time: far below the idle timeouts, generous for a loaded host. */
  private static final long BOUND_MILLIS = 5_000;
  private static final long IDLE_CHANNEL_KEEP_ALIVE_MILLIS = 1_000;
  /** How long the quiet channel has sent nothing when the server is killed. */
  private static final long QUIET_BEFORE_KILL_MILLIS = 1_500;

  private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Process> processes = new ArrayList<>();
  private final byte[] udpKey = UdpTransportOptions.newServerKey();
  private Path certFile;
  private Path keyFile;

  @AfterEach
  void tearDown() throws Exception {
    ticker.shutdownNow();
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Process p : processes) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    if (certFile != null) {
      Files.deleteIfExists(certFile);
      Files.deleteIfExists(keyFile);
    }
  }



  /** Starts the server process and waits until it listens; killed at the end of the test. */
  private Process startServer(String transport, int port) throws Exception {
    Process process = RestartServerProcess.start(transport, port, certFile, keyFile, udpKey);
    processes.add(process);
    return process;
  }

  private ManagedChannel channel(String transport, int port, boolean idle) {
    TernChannelBuilder b = TernChannelBuilder.forAddress(transport.equals("quic") ? "localhost" : "127.0.0.1", port)
        .transports(transport);
    if (transport.equals("quic")) {
      b.tls(CERTS.client());
    } else {
      b.usePlaintext();
    }
    if (transport.equals("udp")) {
      b.transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(udpKey));
    }
    if (idle) {
      b.keepAliveTime(IDLE_CHANNEL_KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS);
    }
    ManagedChannel c = b.build();
    channels.add(c);
    return c;
  }

  private static String echo(ManagedChannel channel, String text) {
    return ClientCalls.blockingUnaryCall(channel, RestartServerMain.ECHO,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), text);
  }

  /** Runs {@link #echo} and returns how long it took, in milliseconds; fails if it does. */
  private static long timedEcho(ManagedChannel channel, String text) {
    long start = System.nanoTime();
    assertThat(echo(channel, text)).isEqualTo(text);
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "quic", "udp"})
  void aKilledAndRestartedServerCostsTheCallInProgressAndNothingAfter(String transport) throws Exception {
    if (transport.equals("quic")) {
      certFile = Files.createTempFile("restart-cert", ".pem");
      keyFile = Files.createTempFile("restart-key", ".pem");
      Files.write(certFile, CERTS.certificatePem());
      Files.write(keyFile, CERTS.privateKeyPem());
    }
    int port = RestartServerProcess.freePort();
    Process first = startServer(transport, port);
    ManagedChannel busy = channel(transport, port, false);
    ManagedChannel idle = channel(transport, port, true);
    ManagedChannel quiet = channel(transport, port, false);
    // Its last call long enough before the kill that nothing of it (a delayed ACK) is still to be
    // sent: a datagram sent into the dead port would draw the ICMP error that ends the connection.
    assertThat(echo(quiet, "before the kill")).isEqualTo("before the kill");
    long quietSince = System.nanoTime();

    // The call in progress: a message every 100 ms, each echoed.
    CompletableFuture<String> firstEcho = new CompletableFuture<>();
    CompletableFuture<Throwable> ended = new CompletableFuture<>();
    AtomicInteger echoed = new AtomicInteger();
    StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(
        busy.newCall(RestartServerMain.CHAT, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS)),
        new StreamObserver<String>() {
          @Override
          public void onNext(String value) {
            echoed.incrementAndGet();
            firstEcho.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            ended.complete(t);
          }

          @Override
          public void onCompleted() {
            ended.complete(null);
          }
        });
    AtomicInteger sent = new AtomicInteger();
    ticker.scheduleAtFixedRate(() -> {
      if (!ended.isDone()) {
        try {
          requests.onNext("message " + sent.incrementAndGet());
        } catch (RuntimeException e) {
          ended.complete(e);
        }
      }
    }, 0, 100, TimeUnit.MILLISECONDS);
    assertThat(firstEcho.get(30, TimeUnit.SECONDS)).startsWith("message ");
    assertThat(echo(idle, "before the kill")).isEqualTo("before the kill");
    long quietLeft = TimeUnit.MILLISECONDS.toNanos(QUIET_BEFORE_KILL_MILLIS) - (System.nanoTime() - quietSince);
    if (quietLeft > 0) {
      Thread.sleep(TimeUnit.NANOSECONDS.toMillis(quietLeft) + 1);
    }
    long idleSince = System.nanoTime();

    // kill -9: Process.destroyForcibly sends SIGKILL on Linux.
    long killedAt = System.nanoTime();
    first.destroyForcibly();
    assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Throwable failure = ended.get(60, TimeUnit.SECONDS);
    long failedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    assertThat(failure).as("the call in progress ended in error").isNotNull();
    Status status = Status.fromThrowable(failure);
    System.out.printf("ServerRestartTest[%s]: the call in progress failed %d ms after the kill: %s%n",
        transport, failedAfterMillis, status);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failedAfterMillis).as("the call in progress failed promptly").isLessThan(BOUND_MILLIS);

    long restartAt = System.nanoTime();
    startServer(transport, port);
    long restartMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartAt);
    // Precondition for the idle channel's check of its quiet connection (see the class comment).
    long quietNanos = TimeUnit.MILLISECONDS.toNanos(2 * IDLE_CHANNEL_KEEP_ALIVE_MILLIS + 500);
    long leftNanos = quietNanos - (System.nanoTime() - idleSince);
    if (leftNanos > 0) {
      Thread.sleep(TimeUnit.NANOSECONDS.toMillis(leftNanos) + 1);
    }

    long idleMillis;
    try {
      idleMillis = timedEcho(idle, "after the restart, idle channel");
    } catch (StatusRuntimeException e) {
      throw new AssertionError("the idle channel's call after the restart failed: " + e.getStatus(), e);
    }
    long quietMillis;
    try {
      quietMillis = timedEcho(quiet, "after the restart, quiet channel with default settings");
    } catch (StatusRuntimeException e) {
      throw new AssertionError("the quiet channel's call after the restart failed: " + e.getStatus(), e);
    }
    long busyMillis = timedEcho(busy, "after the restart, busy channel");
    System.out.printf("ServerRestartTest[%s]: restart took %d ms; after it, the idle channel's call took %d ms, "
        + "the quiet default channel's %d ms, the other channel's %d ms (%d messages echoed before the kill)%n",
        transport, restartMillis, idleMillis, quietMillis, busyMillis, echoed.get());
    assertThat(idleMillis).as("the idle channel's first call after the restart").isLessThan(BOUND_MILLIS);
    assertThat(quietMillis).as("the quiet default channel's first call after the restart").isLessThan(BOUND_MILLIS);
    assertThat(busyMillis).as("the other channel's first call after the restart").isLessThan(BOUND_MILLIS);
  }
}
