package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A path that dies without a word (every datagram lost both ways) ends the call once the idle
 * timeout passes (RFC 9000 §10.1), with a status that says so rather than a bare "closed".
 */
class DeadPathTest {
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aCallOnAPathThatDiedFailsAtTheIdleTimeoutWithAStatusNamingIt() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions());
    Harness.TransportEvents events = new Harness.TransportEvents();
    QuicClientTransport client = null;
    try (UdpRelay relay = new UdpRelay(new InetSocketAddress("127.0.0.1", server.port()))) {
      int port = relay.address().getPort();
      client = (QuicClientTransport) Harness.PROVIDER.newClientTransport(relay.address(), "localhost:" + port,
          Harness.clientOptions().with(QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, 1000L));
      client.start(events);
      Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream").build());
      call.stream.request(2);
      call.stream.writeMessage(utf8("before"));
      call.stream.flush();
      call.headers.get(10, TimeUnit.SECONDS);
      relay.blackHole();
      call.stream.writeMessage(utf8("after"));
      call.stream.flush();

      Status status = call.status.get(20, TimeUnit.SECONDS);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("timed out").contains("idle timeout (1000 ms asked)");
      assertThat(relay.dropped()).as("datagrams lost on the dead path").isPositive();
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
