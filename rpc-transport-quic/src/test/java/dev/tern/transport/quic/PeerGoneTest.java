package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that is gone without a word, as after a crash or a restart, on real loopback sockets:
 * an ICMP port unreachable ends the connection at once; a connection that heard nothing for a
 * keep-alive interval is checked with a probe before a call goes out on it, and a call held so on a
 * connection whose peer never answers is refused unprocessed (the call layer sends it again on a
 * new connection) rather than sent into the silence.
 */
class PeerGoneTest {
  /** Long enough for a keep-alive tick of {@link #INTERVAL_MILLIS} to find the connection quiet. */
  private static final long INTERVAL_MILLIS = 200;

  private static Status echo(QuicClientTransport client, String text) throws Exception {
    Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Unary").build());
    call.stream.request(2);
    call.stream.writeMessage(utf8(text));
    call.stream.halfClose();
    return call.status.get(20, TimeUnit.SECONDS);
  }

  /** Sleeps until two ticks have passed with nothing on the connection: a precondition, not a check. */
  private static void stayQuiet() throws InterruptedException {
    Thread.sleep(3 * INTERVAL_MILLIS + 100);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aServerGoneFromItsPortFailsTheConnectionAtTheFirstPortUnreachable() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions());
    Harness.TransportEvents events = new Harness.TransportEvents();
    QuicClientTransport client = null;
    UdpRelay relay = new UdpRelay(new InetSocketAddress("127.0.0.1", server.port()));
    try {
      int port = relay.address().getPort();
      client = (QuicClientTransport) Harness.PROVIDER.newClientTransport(relay.address(), "localhost:" + port,
          Harness.clientOptions());
      client.start(events);
      Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream").build());
      call.stream.request(2);
      call.stream.writeMessage(utf8("before"));
      call.stream.flush();
      call.headers.get(10, TimeUnit.SECONDS);
      // The relay's socket is the server's address for this client: closing it is a server gone.
      relay.close();
      long start = System.nanoTime();
      call.stream.writeMessage(utf8("after"));
      call.stream.flush();

      Status status = call.status.get(20, TimeUnit.SECONDS);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      System.out.println("PeerGoneTest: the call failed " + millis + " ms after writing to the closed port: " + status);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("port unreachable").contains("crashed or is restarting");
      // The ICMP error decided (the description says so), before the silence rule's 5 s floor for
      // a call in flight could; the time is bounded loosely for a loaded machine.
      assertThat(millis).isLessThan(QuicLiveness.MIN_SILENCE_NANOS / 1_000_000);
      assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription()).contains("port unreachable");
    } finally {
      relay.close();
      if (client != null) {
        client.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
        assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
      }
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aQuietConnectionIsProbedBeforeACallAndACallHeldForASilentPeerIsRefusedUnsent() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions());
    Harness.TransportEvents events = new Harness.TransportEvents();
    QuicClientTransport client = null;
    try (UdpRelay relay = new UdpRelay(new InetSocketAddress("127.0.0.1", server.port()))) {
      int port = relay.address().getPort();
      client = (QuicClientTransport) Harness.PROVIDER.newClientTransport(relay.address(), "localhost:" + port,
          Harness.clientOptions().with(TransportOptions.KEEP_ALIVE_MILLIS, INTERVAL_MILLIS));
      client.start(events);
      events.ready.get(10, TimeUnit.SECONDS);
      assertThat(echo(client, "first").isOk()).isTrue();
      assertThat(client.quietChecks()).isZero();
      long probes = client.keepAliveProbesSent();

      // Quiet for a whole interval: the next call waits for a probe's answer, then goes out.
      stayQuiet();
      assertThat(echo(client, "second").isOk()).isTrue();
      assertThat(client.quietChecks()).as("the call waited for the quiet connection's answer").isEqualTo(1);
      assertThat(client.keepAliveProbesSent()).as("the probe that checked it").isGreaterThan(probes);
      assertThat(server.headers).hasSize(2);

      // Quiet again, and now the server's answers never come: the held call is never sent.
      stayQuiet();
      relay.blackHole();
      long start = System.nanoTime();
      Harness.Call held = Harness.call(client, RequestHeaders.builder("test.Echo/Unary").build());
      held.stream.request(1);
      held.stream.writeMessage(utf8("third"));
      held.stream.halfClose();
      Status status = held.status.get(20, TimeUnit.SECONDS);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      System.out.println("PeerGoneTest: the held call was refused after " + millis + " ms: " + status);
      assertThat(held.refused).as("refused unprocessed, safe to send again").isTrue();
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("the peer stopped answering").contains("the call was not sent");
      assertThat(millis).as("three probe timeouts, at least the check's 500 ms, well before the idle timeout")
          .isBetween(QuicLiveness.CHECK_MIN_SILENCE_NANOS / 1_000_000, 15_000L);
      assertThat(relay.dropped()).as("the probes went into the silence").isPositive();
      assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription()).contains("stopped answering");
      assertThat(server.headers).as("the server never saw the held call").hasSize(2);
      assertThat(client.quietChecks()).isEqualTo(2);
    } finally {
      if (client != null) {
        client.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
        assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
      }
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }
  /**
   * RFC 9000 §10.2.2: once the server's CONNECTION_CLOSE arrives the connection is draining and
   * nothing more comes over it. Quiche keeps the channel open for three probe timeouts after that
   * (seconds after a burst of losses); the client must not wait for them: it reports the
   * connection shut down, and fails its calls, while quiche still drains.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aServersConnectionCloseEndsTheConnectionAtOnceNotAfterDraining() throws Exception {
    java.util.concurrent.CompletableFuture<dev.tern.rpc.spi.ServerTransportListener.ConnectionHandle> handle =
        new java.util.concurrent.CompletableFuture<>();
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()) {
      @Override
      public ConnectionListener connectionCreated(ConnectionHandle connection) {
        handle.complete(connection);
        return ConnectionListener.PASS_THROUGH;
      }
    };
    java.util.concurrent.atomic.AtomicReference<QuicClientTransport> clientRef =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.CompletableFuture<Boolean> activeAtShutdown = new java.util.concurrent.CompletableFuture<>();
    Harness.TransportEvents events = new Harness.TransportEvents() {
      @Override
      public void transportShutdown(Status status) {
        activeAtShutdown.complete(clientRef.get().quicChannelActive());
        super.transportShutdown(status);
      }
    };
    QuicClientTransport client = (QuicClientTransport) Harness.PROVIDER.newClientTransport(
        new InetSocketAddress("127.0.0.1", server.port()), "localhost:" + server.port(), Harness.clientOptions());
    clientRef.set(client);
    try {
      client.start(events);
      Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream").build());
      call.stream.request(2);
      call.stream.writeMessage(utf8("before"));
      call.stream.flush();
      call.headers.get(10, TimeUnit.SECONDS);

      handle.get(10, TimeUnit.SECONDS).shutdownNow(Status.UNAVAILABLE.withDescription("closed by the test"));

      // The server resets its streams (H3_REQUEST_CANCELLED) before it closes the connection.
      assertThat(call.status.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
      Status shutdown = events.shutdown.get(10, TimeUnit.SECONDS);
      assertThat(shutdown.getDescription()).contains("closed by the server");
      assertThat(activeAtShutdown.get(10, TimeUnit.SECONDS))
          .as("the shutdown was reported while quiche still drained the closed connection").isTrue();
    } finally {
      client.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }
}
