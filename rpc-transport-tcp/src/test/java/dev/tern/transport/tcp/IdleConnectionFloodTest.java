package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.Echo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
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
 * -Dtern.idleFlood.idleMillis=300000 -Djunit.jupiter.execution.timeout.mode=disabled} runs it at
 * full size with the defaults, where the process may hold that many descriptors (docs/limits.md).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class IdleConnectionFloodTest {
  private static final int CONNECTIONS = Integer.getInteger("tern.idleFlood.connections", 4_000);
  private static final int LIMIT = Integer.getInteger("tern.idleFlood.limit", 1_000);
  private static final long IDLE_MILLIS = Long.getLong("tern.idleFlood.idleMillis", 5_000);
  private static final byte[] PREFACE_AND_SETTINGS = concat("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
      .getBytes(StandardCharsets.US_ASCII), new byte[] {0, 0, 0, RawHttp2Peer.SETTINGS, 0, 0, 0, 0, 0});

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
    List<Idle> idle = new ArrayList<>(CONNECTIONS);
    AtomicBoolean flooding = new AtomicBoolean(true);
    try (Selector selector = Selector.open()) {
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

      long openStartNs = System.nanoTime();
      for (int i = 0; i < CONNECTIONS; i++) {
        SocketChannel s = SocketChannel.open(address);
        s.write(ByteBuffer.wrap(PREFACE_AND_SETTINGS));
        s.configureBlocking(false);
        Idle c = new Idle(s, System.nanoTime());
        s.register(selector, SelectionKey.OP_READ, c);
        idle.add(c);
      }
      long openMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openStartNs);

      // Reads until every idle connection has been closed by the server, or the idle timeout and
      // 90 s more have passed.
      ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
      int open = CONNECTIONS;
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS) + TimeUnit.SECONDS.toNanos(90);
      while (open > 0 && System.nanoTime() < deadline) {
        selector.select(1000);
        for (SelectionKey key : selector.selectedKeys()) {
          Idle c = (Idle) key.attachment();
          if (c.read(buf)) {
            key.cancel();
            c.socket.close();
            open--;
          }
        }
        selector.selectedKeys().clear();
      }
      flooding.set(false);
      int legitimateCalls = calls.get(30, TimeUnit.SECONDS);

      int refused = 0;
      int admitted = 0;
      int sentGoAway = 0;
      long firstIdleCloseMs = Long.MAX_VALUE;
      long lastIdleCloseMs = 0;
      for (Idle c : idle) {
        if (!c.closed) {
          continue;
        }
        if (c.bytes == 0) {
          refused++;
        } else {
          admitted++;
          sentGoAway += c.goAway ? 1 : 0;
          long ms = TimeUnit.NANOSECONDS.toMillis(c.closedNs - c.openedNs);
          firstIdleCloseMs = Math.min(firstIdleCloseMs, ms);
          lastIdleCloseMs = Math.max(lastIdleCloseMs, ms);
        }
      }
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
      for (Idle c : idle) {
        c.socket.close();
      }
      legitimate.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** One idle connection, as its client sees it: bytes the server sent, GOAWAY, when it closed. */
  private static final class Idle {
    final SocketChannel socket;
    final long openedNs;
    long bytes;
    boolean goAway;
    boolean closed;
    long closedNs;
    /** Where the next frame header starts, counted in bytes from the server's first byte (RFC 9113 §4.1). */
    private long nextFrameAt;
    private final byte[] header = new byte[9];
    private int headerBytes;

    Idle(SocketChannel socket, long openedNs) {
      this.socket = socket;
      this.openedNs = openedNs;
    }

    /** Reads what arrived; true once the server closed the connection. */
    boolean read(ByteBuffer buf) {
      while (true) {
        buf.clear();
        int n;
        try {
          n = socket.read(buf);
        } catch (IOException e) {
          n = -1; // reset by the server
        }
        if (n < 0) {
          closed = true;
          closedNs = System.nanoTime();
          return true;
        }
        if (n == 0) {
          return false;
        }
        for (int i = 0; i < n; i++, bytes++) {
          if (bytes >= nextFrameAt) {
            header[headerBytes++] = buf.get(i);
            if (headerBytes == 9) {
              int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
              goAway |= header[3] == RawHttp2Peer.GOAWAY;
              nextFrameAt = bytes + 1 + length;
              headerBytes = 0;
            }
          }
        }
      }
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }
}
