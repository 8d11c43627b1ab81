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
 * QUIC keep-alive ({@link QuicLiveness}): a call that stays quiet for longer than the idle timeout
 * survives because the client's probes keep the connection heard, where a client probing less
 * often than the idle timeout loses it; and a path that dies is found by the unanswered probe
 * (three probe timeouts, at most the keep-alive timeout), long before the idle timeout.
 */
class KeepAliveProbeTest {
  private static final long IDLE_MILLIS = 2_000;

  /** Opens a stream call, waits {@code quietMillis} with nothing sent, then sends and awaits the echo. */
  private static Status quietThenEcho(TransportOptions clientOptions, long quietMillis, long[] probes) throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, IDLE_MILLIS));
    Harness.TransportEvents events = new Harness.TransportEvents();
    QuicClientTransport client = (QuicClientTransport) Harness.PROVIDER.newClientTransport(
        new InetSocketAddress("127.0.0.1", server.port()), "localhost:" + server.port(),
        clientOptions.with(QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, IDLE_MILLIS));
    try {
      client.start(events);
      Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream").build());
      call.stream.request(2);
      call.stream.writeMessage(utf8("before"));
      call.stream.flush();
      call.headers.get(10, TimeUnit.SECONDS);
      Thread.sleep(quietMillis);
      if (!call.status.isDone()) {
        call.stream.writeMessage(utf8("after"));
        call.stream.halfClose();
      }
      Status status = call.status.get(10, TimeUnit.SECONDS);
      probes[0] = client.keepAliveProbesSent();
      if (status.isOk()) {
        assertThat(call.messages).containsExactly("before", "after");
      }
      return status;
    } finally {
      client.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void probesKeepAQuietCallAlivePastTheIdleTimeout() throws Exception {
    long[] probes = new long[1];
    Status kept = quietThenEcho(Harness.clientOptions().with(TransportOptions.KEEP_ALIVE_MILLIS, 500L),
        3 * IDLE_MILLIS, probes);
    assertThat(kept.isOk()).as("status %s", kept).isTrue();
    assertThat(probes[0]).as("probes sent").isPositive();

    // The same call with probes rarer than the idle timeout: quiche closes the quiet connection.
    Status lost = quietThenEcho(Harness.clientOptions().with(TransportOptions.KEEP_ALIVE_MILLIS, 30_000L),
        3 * IDLE_MILLIS, probes);
    assertThat(lost.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(lost.getDescription()).contains("idle timeout");
    assertThat(probes[0]).isZero();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void anUnansweredProbeEndsTheCallsLongBeforeTheIdleTimeout() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions());
    Harness.TransportEvents events = new Harness.TransportEvents();
    QuicClientTransport client = null;
    try (UdpRelay relay = new UdpRelay(new InetSocketAddress("127.0.0.1", server.port()))) {
      int port = relay.address().getPort();
      // An idle timeout of 60 s, the default: only the probe can end the call within the 20 s below.
      client = (QuicClientTransport) Harness.PROVIDER.newClientTransport(relay.address(), "localhost:" + port,
          Harness.clientOptions().with(TransportOptions.KEEP_ALIVE_MILLIS, 500L)
              .with(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS, 1_000L));
      client.start(events);
      Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream").build());
      call.stream.request(2);
      call.stream.writeMessage(utf8("before"));
      call.stream.flush();
      call.headers.get(10, TimeUnit.SECONDS);
      relay.blackHole();

      Status status = call.status.get(20, TimeUnit.SECONDS);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("is dead: the peer stopped answering");
      assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    } finally {
      if (client != null) {
        client.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
        assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
      }
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }
}
