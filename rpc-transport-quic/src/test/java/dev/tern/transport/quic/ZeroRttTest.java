package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.PROVIDER;
import static dev.tern.transport.quic.Harness.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** TLS 1.3 0-RTT on QUIC: a resumed connection sends its early-data calls in the first flight. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ZeroRttTest {

  @Test
  void resumedConnectionSendsItsFirstCallAsEarlyData() throws Exception {
    // Trust material of its own, so no other test's cached TLS sessions are in play.
    TransportOptions clientOptions = Harness.clientOptions().with(TransportOptions.MAX_INBOUND_METADATA_SIZE, 8191);
    // 20 ms one-way delay into the server: on bare loopback the server's answer can arrive before
    // the client's event loop gets to the task that opens the early-data call.
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(QuicTransportOptions.IMPAIRMENT, DatagramImpairment.of(0, 0, 0, 1).withInboundDelayMillis(20)));
    try {
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
      String authority = "localhost:" + server.port();

      // First connection: a full handshake; the server's session ticket is cached by the client.
      Harness.TransportEvents first = new Harness.TransportEvents();
      ClientTransport cold = PROVIDER.newClientTransport(address, authority, clientOptions);
      cold.start(first);
      assertThat(echo(cold, true).get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      ServerStream coldStream = server.streams.poll(5, TimeUnit.SECONDS);
      assertThat(coldStream.receivedAsEarlyData()).isFalse();
      cold.shutdown();
      assertThat(first.terminated.await(10, TimeUnit.SECONDS)).isTrue();

      // Second connection: resumes; the call allowed early data goes out before the handshake ends.
      Harness.TransportEvents second = new Harness.TransportEvents();
      ClientTransport warm = PROVIDER.newClientTransport(address, authority, clientOptions);
      warm.start(second);
      var early = echo(warm, true);
      assertThat(early.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      ServerStream earlyStream = server.streams.poll(5, TimeUnit.SECONDS);
      assertThat(earlyStream.receivedAsEarlyData()).as("first call of the resumed connection").isTrue();
      assertThat(server.headers.stream().skip(1).findFirst().orElseThrow().earlyDataAllowed()).isTrue();
      assertThat(warm.connectionInfo().earlyDataAccepted()).isTrue();

      // A call not allowed early data waits for the handshake.
      assertThat(echo(warm, false).get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(server.streams.poll(5, TimeUnit.SECONDS).receivedAsEarlyData()).isFalse();
      warm.shutdownNow(Status.CANCELLED);
      assertThat(second.terminated.await(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static java.util.concurrent.CompletableFuture<Status> echo(ClientTransport t, boolean earlyData) {
    Harness.Call call = Harness.call(t, RequestHeaders.builder("test.Echo/Get").earlyDataAllowed(earlyData)
        .idempotent(earlyData).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("hi"));
    call.stream.halfClose();
    return call.status;
  }
}
