package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.Echo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Idle connections against a Tern server on {@code tcp}: thousands of sockets that send the HTTP/2
 * preface and an empty SETTINGS frame and then go quiet. Beyond the server's connection limit they
 * are closed as soon as they are accepted, before the server says a word; the ones admitted get the
 * server's SETTINGS and, once idle for the idle timeout, GOAWAY and a close; a legitimate client
 * connected before the flood keeps calling throughout, and a new client gets in once the idle ones
 * are gone.
 *
 * <p>Scaled down to stay under a minute on one machine (the sockets of both ends live in this one
 * process): 4,000 connections against a limit of 1,000 (default 10,000) and an idle timeout of 5 s
 * (default 5 minutes). {@code -Dtern.idleFlood.connections=20000 -Dtern.idleFlood.limit=10000
 * -Dtern.idleFlood.idleMillis=300000 -Dtern.idleFlood.processes=2
 * -Djunit.jupiter.execution.timeout.mode=disabled} runs it at full size with the defaults, the
 * idle clients in two processes of their own (a process here may hold 20,000 descriptors; see
 * docs/limits.md).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class IdleConnectionFloodTest {
  private static final int CONNECTIONS = Integer.getInteger("tern.idleFlood.connections", 4_000);
  private static final int LIMIT = Integer.getInteger("tern.idleFlood.limit", 1_000);
  private static final long IDLE_MILLIS = Long.getLong("tern.idleFlood.idleMillis", 5_000);
  /** Processes the flood's connections are spread over (each holds its sockets' descriptors). */
  private static final int PROCESSES = Integer.getInteger("tern.idleFlood.processes", 1);

  @Test
  void idleConnectionsAreRefusedBeyondTheLimitAndClosedWhenIdleWhileALegitimateClientCarriesOn() throws Exception {
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service())
        .transportOption(TransportOptions.MAX_CONNECTIONS, LIMIT)
        .maxConnectionIdle(IDLE_MILLIS, TimeUnit.MILLISECONDS)
        .build().start();
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.getPort());
    ManagedChannel legitimate = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
        .usePlaintext().build();
    List<IdleFlood.Idle> idle = new ArrayList<>(PROCESSES <= 1 ? CONNECTIONS : 0);
    AtomicBoolean flooding = new AtomicBoolean(true);
    try {
      assertThat(Echo.call(legitimate, "before")).isEqualTo("before");
      // Calls every 50 ms throughout: the legitimate connection never goes idle, and is never refused.
      List<Long> latenciesNs = java.util.Collections.synchronizedList(new ArrayList<>());
      CompletableFuture<Integer> calls = CompletableFuture.supplyAsync(() -> {
        int n = 0;
        try {
          while (flooding.get()) {
            long start = System.nanoTime();
            String answer = Echo.call(legitimate, "during " + n);
            latenciesNs.add(System.nanoTime() - start);
            if (!answer.equals("during " + n)) {
              throw new AssertionError(answer);
            }
            n++;
            Thread.sleep(50); // a client's think time, not a wait for a condition
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return n;
      });

      // Reads until every idle connection has been closed by the server, or the idle timeout and
      // 90 s more have passed.
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS) + TimeUnit.SECONDS.toNanos(90);
      IdleFlood.Result r = PROCESSES <= 1
          ? IdleFlood.run(address, CONNECTIONS, deadline, idle)
          : inProcesses(address, deadline);
      flooding.set(false);
      int legitimateCalls = calls.get(30, TimeUnit.SECONDS);
      int open = r.open;
      int refused = r.refused;
      int admitted = r.admitted;
      int sentGoAway = r.goAway;
      long firstIdleCloseMs = r.firstIdleCloseMs;
      long lastIdleCloseMs = r.lastIdleCloseMs;
      long openMs = r.openMs;
      long[] sorted = latenciesNs.stream().mapToLong(Long::longValue).sorted().toArray();
      System.out.printf("tcp idle flood: %d connections opened in %d ms against a limit of %d; refused at once %d,"
              + " admitted %d (GOAWAY before the close: %d), closed when idle after %d..%d ms (idle timeout %d ms),"
              + " still open %d; legitimate calls %d, p50 %.2f ms, p99 %.2f ms%n",
          CONNECTIONS, openMs, LIMIT, refused, admitted, sentGoAway, firstIdleCloseMs, lastIdleCloseMs, IDLE_MILLIS,
          open, legitimateCalls, percentile(sorted, 0.5), percentile(sorted, 0.99));

      assertThat(open).as("idle connections the server never closed").isZero();
      // The legitimate connection holds one place; slots freed by idle closes while the flood was
      // still connecting may have let a few more in.
      assertThat(refused).as("connections refused at once, beyond the limit").isGreaterThanOrEqualTo(CONNECTIONS - LIMIT);
      assertThat(admitted).as("connections admitted").isLessThanOrEqualTo(LIMIT).isGreaterThanOrEqualTo(LIMIT / 2);
      assertThat(sentGoAway).as("admitted connections told GOAWAY before the close").isEqualTo(admitted);
      assertThat(firstIdleCloseMs).as("no admitted connection closed before its idle timeout")
          .isGreaterThanOrEqualTo(IDLE_MILLIS);
      assertThat(legitimateCalls).as("legitimate calls during the flood, all answered").isPositive();
      ManagedChannel late = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
          .usePlaintext().build();
      try {
        assertThat(Echo.call(late, "after")).as("a new client once the idle connections are gone").isEqualTo("after");
      } finally {
        late.shutdownNow();
      }
    } finally {
      flooding.set(false);
      for (IdleFlood.Idle c : idle) {
        c.socket.close();
      }
      legitimate.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * Runs the flood in {@link #PROCESSES} JVMs of {@link IdleFlood#main}, {@link #CONNECTIONS} in
   * all, and adds their results: one process may hold fewer descriptors than the flood needs.
   */
  private static IdleFlood.Result inProcesses(InetSocketAddress address, long deadlineNs) throws Exception {
    String surefire = System.getProperty("surefire.test.class.path");
    String classPath = surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    long waitMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
    List<Process> processes = new ArrayList<>();
    for (int i = 0; i < PROCESSES; i++) {
      int n = CONNECTIONS / PROCESSES + (i < CONNECTIONS % PROCESSES ? 1 : 0);
      processes.add(new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-XX:+UseSerialGC", "-Xmx256m", "-cp", classPath, IdleFlood.class.getName(),
          address.getHostString(), Integer.toString(address.getPort()), Integer.toString(n), Long.toString(waitMs))
          .redirectErrorStream(true).start());
    }
    IdleFlood.Result sum = new IdleFlood.Result();
    for (Process p : processes) {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(waitMs + 60_000, TimeUnit.MILLISECONDS)).isTrue();
      IdleFlood.Result r = IdleFlood.Result.parse(out);
      assertThat(r).as("a flood process's result line in:%n%s", out).isNotNull();
      sum.add(r);
    }
    return sum;
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }
}
