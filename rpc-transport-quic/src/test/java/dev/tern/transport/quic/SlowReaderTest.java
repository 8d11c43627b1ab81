package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.PROVIDER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reader that stops reading holds its peer back by the stream's flow-control window (RFC 9000
 * §4.1): the sender writes from its own thread while {@code isReady()}, as a well-behaved
 * application does, and must find it false for good once about one stream window is committed.
 * Both directions, on real sockets over loopback. Asking for the rest afterwards must let all of
 * it through, so the held-back stream is not stuck.
 *
 * <p>The bound, {@link #BOUND}: the reader's window (quiche lets the sender commit that much
 * beyond what the reader consumed, and grants more only once half of it has been read, which a
 * reader of one message never does), the bytes the reader consumed (one message and at most one
 * 64 KiB receive buffer), and what the writer may have written that quiche has not taken (under
 * {@link UnsentBytes#READY_BYTES}, 256 KiB, and the message that crossed it). Runs commit 1,248
 * KiB. Without the first fix the writer's writes queued on the event loop faster than the loop
 * met the closed window, and all 64 MiB were written; with writes counted only until the loop
 * handed them to the stream channel (not until quiche took them), the frames waiting there for a
 * flush did not count and did not make the channel unwritable, and 1,280 to 2,816 KiB were written
 * (half of six runs past twice the window on a busy machine).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SlowReaderTest {
  private static final int WINDOW = 1024 * 1024;
  private static final int MESSAGE = 32 * 1024;
  private static final long TOTAL = 64L * 1024 * 1024;
  private static final long BOUND = WINDOW + UnsentBytes.READY_BYTES + MESSAGE + 64 * 1024;

  private final ExecutorService app = Executors.newSingleThreadExecutor();
  private ServerTransport server;
  private ClientTransport client;

  @AfterEach
  void tearDown() throws Exception {
    if (client != null) {
      client.shutdownNow(Status.UNAVAILABLE);
    }
    if (server != null) {
      server.shutdownNow(Status.UNAVAILABLE);
    }
    app.shutdownNow();
  }

  /** A server streams 64 MiB to a client that asked for one message: it stops near one window. */
  @Test
  void aClientThatStopsReadingHoldsTheServerToItsStreamWindow() throws Exception {
    Pump pump = new Pump(TOTAL);
    CompletableFuture<Status> serverEnd = new CompletableFuture<>();
    startServer(new ServerTransportListener() {
      @Override
      public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
        stream.request(1);
        return new ServerStreamListener() {
          @Override public void onMessage(ByteBuffer message) {
            stream.writeHeaders(new Metadata());
            pump.start(stream::isReady, stream::writeMessage, stream::flush,
                () -> stream.close(Status.OK, new Metadata()));
          }

          @Override public void onHalfClose() {}

          @Override public void onReady() {
            pump.resume();
          }

          @Override public void onComplete() {
            serverEnd.complete(Status.OK);
          }

          @Override public void onCancel(Status status) {
            serverEnd.complete(status);
          }
        };
      }

      @Override public void serverTerminated() {}
    });
    Reader reader = new Reader();
    ClientStream stream = startClient().newStream(RequestHeaders.builder("test.Bulk/Download").build(), reader);
    reader.stream = stream;
    stream.request(1);
    stream.writeMessage(Harness.utf8("go"));
    stream.halfClose();
    await("the first message").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
        .until(() -> reader.received.get() > 0);
    assertThat(reader.received.get()).as("the first message arrived").isEqualTo(1);

    long held = awaitStopped(pump);
    System.out.printf("server -> client: %d KiB written before isReady() stayed false (window %d KiB)%n",
        held >> 10, WINDOW >> 10);
    assertThat(held).as("bytes the server wrote to a client that read one message").isLessThanOrEqualTo(BOUND);
    assertThat(reader.received.get()).as("messages delivered unrequested").isEqualTo(1);

    // Asking for the rest lets every byte through.
    long start = System.nanoTime();
    stream.request(Integer.MAX_VALUE);
    assertThat(reader.status.get(60, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("server -> client: the rest, %d MiB, in %.2f s (%.0f MiB/s)%n",
        (TOTAL - held) >> 20, seconds, (TOTAL - held) / 1048576.0 / seconds);
    assertThat((long) reader.received.get() * MESSAGE).isEqualTo(TOTAL);
    assertThat(serverEnd.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
  }

  /** A client streams 64 MiB to a server that asked for one message: it stops near one window. */
  @Test
  void aServerThatStopsReadingHoldsTheClientToItsStreamWindow() throws Exception {
    AtomicInteger serverReceived = new AtomicInteger();
    CompletableFuture<ServerStream> serverStream = new CompletableFuture<>();
    startServer(new ServerTransportListener() {
      @Override
      public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
        stream.request(1);
        serverStream.complete(stream);
        return new ServerStreamListener() {
          @Override public void onMessage(ByteBuffer message) {
            serverReceived.incrementAndGet();
          }

          @Override public void onHalfClose() {
            stream.close(Status.OK, new Metadata());
          }

          @Override public void onReady() {}

          @Override public void onComplete() {}

          @Override public void onCancel(Status status) {}
        };
      }

      @Override public void serverTerminated() {}
    });
    Pump pump = new Pump(TOTAL);
    Reader reader = new Reader() {
      @Override public void onReady() {
        pump.resume();
      }
    };
    ClientStream stream = startClient().newStream(RequestHeaders.builder("test.Bulk/Upload").build(), reader);
    reader.stream = stream;
    stream.request(1);
    pump.start(stream::isReady, stream::writeMessage, stream::flush, stream::halfClose);
    await("the first message").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
        .until(() -> serverReceived.get() > 0);
    assertThat(serverReceived.get()).as("the first message arrived").isEqualTo(1);

    long held = awaitStopped(pump);
    System.out.printf("client -> server: %d KiB written before isReady() stayed false (window %d KiB)%n",
        held >> 10, WINDOW >> 10);
    assertThat(held).as("bytes the client wrote to a server that read one message").isLessThanOrEqualTo(BOUND);
    assertThat(serverReceived.get()).as("messages delivered unrequested").isEqualTo(1);

    serverStream.get().request(Integer.MAX_VALUE);
    assertThat(reader.status.get(60, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat((long) serverReceived.get() * MESSAGE).isEqualTo(TOTAL);
  }

  /**
   * Waits, at most 20 s, until {@code pump}'s stream has stayed not ready, with nothing more
   * written, for a whole second, and returns what it wrote: the sender's writes have stopped.
   */
  private static long awaitStopped(Pump pump) {
    AtomicLong seen = new AtomicLong(-1);
    await("the sender stops, " + (pump.written.get() >> 10) + " KiB written so far")
        .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).during(Duration.ofSeconds(1))
        .until(() -> !pump.ready.getAsBoolean() && seen.getAndSet(pump.written.get()) == pump.written.get());
    return pump.written.get();
  }

  private void startServer(ServerTransportListener listener) throws Exception {
    server = PROVIDER.newServerTransport(new InetSocketAddress("127.0.0.1", 0),
        Harness.serverOptions().with(TransportOptions.FLOW_CONTROL_WINDOW, WINDOW));
    server.start(listener);
  }

  private ClientTransport startClient() throws Exception {
    int port = ((InetSocketAddress) server.listenAddress()).getPort();
    Harness.TransportEvents events = new Harness.TransportEvents();
    client = PROVIDER.newClientTransport(new InetSocketAddress("127.0.0.1", port), "localhost:" + port,
        Harness.clientOptions().with(TransportOptions.FLOW_CONTROL_WINDOW, WINDOW));
    client.start(events);
    events.ready.get(10, TimeUnit.SECONDS);
    return client;
  }

  /**
   * Writes {@code total} bytes in {@link #MESSAGE}-byte messages on the application's thread,
   * while the stream is ready, as grpc's on-ready pattern does; resumes on {@code onReady}.
   */
  private final class Pump {
    final long total;
    final AtomicLong written = new AtomicLong();
    volatile java.util.function.BooleanSupplier ready;
    volatile java.util.function.Consumer<ByteBuffer> write;
    volatile Runnable flush;
    volatile Runnable end;
    private boolean ended;

    Pump(long total) {
      this.total = total;
    }

    void start(java.util.function.BooleanSupplier ready, java.util.function.Consumer<ByteBuffer> write,
        Runnable flush, Runnable end) {
      this.ready = ready;
      this.write = write;
      this.flush = flush;
      this.end = end;
      resume();
    }

    void resume() {
      if (write != null) {
        app.execute(this::run);
      }
    }

    private void run() {
      boolean wrote = false;
      while (!ended && written.get() < total && ready.getAsBoolean()) {
        write.accept(ByteBuffer.allocate(MESSAGE));
        written.addAndGet(MESSAGE);
        wrote = true;
      }
      if (wrote) {
        flush.run();
      }
      if (!ended && written.get() >= total) {
        ended = true;
        end.run();
      }
    }
  }

  /** Counts the messages it is given. */
  private static class Reader implements ClientStreamListener {
    final AtomicInteger received = new AtomicInteger();
    final CompletableFuture<Status> status = new CompletableFuture<>();
    volatile ClientStream stream;

    @Override public void onHeaders(Metadata headers) {}

    @Override public void onMessage(ByteBuffer message) {
      received.incrementAndGet();
    }

    @Override public void onReady() {}

    @Override public void onClose(Status s, Metadata trailers) {
      status.complete(s);
    }
  }
}
