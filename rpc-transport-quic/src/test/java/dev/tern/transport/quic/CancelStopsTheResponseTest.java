package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.PROVIDER;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client's cancel stops the response at once (RFC 9000 §3.5: STOP_SENDING, answered by a
 * RESET_STREAM that discards what the server's quiche still buffered, §19.4, §19.5). Counted at a
 * UDP relay between the two (every byte the server sent, when the connection is over) and from
 * the server's quiche statistics when the server hears the cancel: after that the server puts next
 * to nothing more on the wire, though its handler had queued 8 MiB and the client's window allowed
 * megabytes more.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CancelStopsTheResponseTest {
  private static final int MESSAGE = 64 * 1024;
  private static final int MESSAGES = 128; // 8 MiB queued by the handler at once
  private static final int CLIENT_WINDOW = 4 * 1024 * 1024;
  /** What the server may still send once it heard the cancel: acknowledgements, the reset, the close. */
  private static final long AFTER_SERVER_CANCEL_BOUND = 16 * 1024;
  /** What may cross after the client's cancel: the above and what was in flight towards it. */
  private static final long AFTER_CANCEL_BOUND = 256 * 1024;

  private final CompletableFuture<Status> serverCancel = new CompletableFuture<>();
  private final AtomicLong atServerCancel = new AtomicLong(-1);
  private volatile UdpRelay relay;
  private ServerTransport server;

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.shutdownNow(Status.UNAVAILABLE);
    }
  }

  /**
   * The client reads one message and no more, so its stream window fills; it cancels once a
   * window's worth has crossed (the tail of the window may still be in flight). Its request's FIN
   * has gone, so the cancel can only be STOP_SENDING.
   */
  @Test
  void aCancelAfterTheWindowFilledStopsTheServerAtOnce() throws Exception {
    long[] counts = download(false);
    assertThat(counts[1]).as("bytes the server sent after the client's cancel").isLessThan(AFTER_CANCEL_BOUND);
    assertThat(counts[2]).as("bytes the server sent after it heard the cancel").isLessThan(AFTER_SERVER_CANCEL_BOUND);
  }

  /** The client reads as fast as it can and cancels after 1 MiB of the 8 MiB, with data in flight. */
  @Test
  void aCancelWhileDataFlowsStopsTheServerOnceItArrives() throws Exception {
    long[] counts = download(true);
    assertThat(counts[1]).as("bytes the server sent after the client's cancel").isLessThan(AFTER_CANCEL_BOUND);
    assertThat(counts[2]).as("bytes the server sent after it heard the cancel").isLessThan(AFTER_SERVER_CANCEL_BOUND);
    assertThat(counts[0] + counts[1]).as("bytes of the 8 MiB response that crossed at all")
        .isLessThan((long) MESSAGE * MESSAGES / 2);
  }

  /** Runs one cancelled download; returns bytes before the cancel, after it, after the server's onCancel. */
  private long[] download(boolean reading) throws Exception {
    startServer();
    int port = ((InetSocketAddress) server.listenAddress()).getPort();
    Harness.TransportEvents events = new Harness.TransportEvents();
    try (UdpRelay r = new UdpRelay(new InetSocketAddress("127.0.0.1", port))) {
      relay = r;
      ClientTransport client = PROVIDER.newClientTransport(r.address(), "localhost:" + port,
          Harness.clientOptions().with(TransportOptions.FLOW_CONTROL_WINDOW, CLIENT_WINDOW));
      client.start(events);
      events.ready.get(10, TimeUnit.SECONDS);
      CancellingListener call = new CancellingListener(reading ? 16 : Integer.MAX_VALUE);
      call.stream = client.newStream(RequestHeaders.builder("test.Bulk/Download").build(), call);
      call.stream.request(reading ? Integer.MAX_VALUE : 1);
      call.stream.writeMessage(Harness.utf8("go"));
      call.stream.halfClose();
      if (!reading) {
        assertThat(r.awaitToClientBytes(CLIENT_WINDOW, 20_000)).as("the server filled the client's window").isTrue();
        call.cancelNow();
        call.stream.request(MESSAGES); // asking for more after the cancel must not reopen the flow
      }
      assertThat(call.status.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
      assertThat(serverCancel.get(10, TimeUnit.SECONDS).getCode()).as("server onCancel").isEqualTo(Status.Code.CANCELLED);
      // Everything the server sends up to the connection's end is counted.
      client.shutdown();
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
      long total = r.toClientBytes();
      long[] counts = {call.atCancel, total - call.atCancel, total - atServerCancel.get()};
      System.out.printf("server-to-client bytes (%s): %d before the cancel, %d after it, %d after the server's"
          + " onCancel%n", reading ? "reading" : "window full", counts[0], counts[1], counts[2]);
      return counts;
    }
  }

  private void startServer() throws Exception {
    server = PROVIDER.newServerTransport(new InetSocketAddress("127.0.0.1", 0), Harness.serverOptions());
    server.start(new ServerTransportListener() {
      @Override
      public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
        stream.request(1);
        return new ServerStreamListener() {
          @Override
          public void onMessage(ByteBuffer message) {
            stream.writeHeaders(new Metadata());
            for (int i = 0; i < MESSAGES; i++) {
              stream.writeMessage(ByteBuffer.allocate(MESSAGE)); // ignores isReady(): all of it queues
            }
            stream.flush();
          }

          @Override public void onHalfClose() {}

          @Override public void onReady() {}

          @Override public void onComplete() {}

          @Override
          public void onCancel(Status status) {
            // quiche's count of the bytes this connection sent so far: exact, unlike the relay's count
            // now, which lags by the datagrams waiting in the relay's socket buffer.
            atServerCancel.set(stream.connectionInfo().bytesSent());
            serverCancel.complete(status);
          }
        };
      }

      @Override
      public void serverTerminated() {}
    });
  }

  /** Cancels its stream after {@code cancelAfter} messages (from inside {@code onMessage}). */
  private final class CancellingListener implements ClientStreamListener {
    final CompletableFuture<Status> status = new CompletableFuture<>();
    final int cancelAfter;
    final AtomicInteger received = new AtomicInteger();
    volatile long atCancel = -1;
    ClientStream stream;

    CancellingListener(int cancelAfter) {
      this.cancelAfter = cancelAfter;
    }

    void cancelNow() {
      atCancel = relay.toClientBytes();
      stream.cancel(Status.CANCELLED.withDescription("the user went away"));
    }

    @Override public void onHeaders(Metadata headers) {}

    @Override
    public void onMessage(ByteBuffer message) {
      if (received.incrementAndGet() == cancelAfter) {
        cancelNow();
      }
    }

    @Override public void onReady() {}

    @Override
    public void onClose(Status s, Metadata trailers) {
      status.complete(s);
    }
  }
}
