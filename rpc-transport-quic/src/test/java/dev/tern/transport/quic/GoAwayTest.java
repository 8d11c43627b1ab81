package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.PROVIDER;
import static dev.tern.transport.quic.Harness.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * After the server's GOAWAY (RFC 9114 §5.2) a call still queued on the client never goes out on
 * the draining connection: it ends at once, refused unprocessed with UNAVAILABLE (which lets the
 * call layer replay it elsewhere), while the call already open there runs to its end.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GoAwayTest {
  @Test
  void aCallQueuedWhenGoAwayArrivesFailsUnavailableAndIsNeverSent() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(TransportOptions.MAX_CONCURRENT_STREAMS, 1));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = PROVIDER.newClientTransport(new InetSocketAddress("127.0.0.1", server.port()),
        "localhost:" + server.port(), Harness.clientOptions());
    client.start(events);
    try {
      events.ready.get(10, TimeUnit.SECONDS);
      Harness.Call open = Harness.call(client, RequestHeaders.builder("test.Echo/Open").build());
      open.stream.request(2);
      open.stream.writeMessage(utf8("first"));
      open.stream.flush();
      assertThat(server.headers.poll(10, TimeUnit.SECONDS)).as("the open call at the server").isNotNull();
      assertThat(open.headers.get(10, TimeUnit.SECONDS)).as("the open call's response headers").isNotNull();

      // The server allows one stream: this call waits on the client for a slot.
      Harness.Call queued = Harness.call(client, RequestHeaders.builder("test.Echo/Queued").build());
      queued.stream.request(1);
      queued.stream.writeMessage(utf8("second"));
      queued.stream.halfClose();
      assertThat(server.headers.poll(300, TimeUnit.MILLISECONDS)).as("the queued call at the server").isNull();

      server.transport.shutdown();
      assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      // The open call still holds the only slot: the queued one fails now, not when a slot frees.
      Status status = queued.status.get(10, TimeUnit.SECONDS);
      assertThat(status.getCode()).as("queued call %s", status).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("GOAWAY").contains("safe to retry");
      assertThat(queued.refused).as("ended as refused unprocessed, so the call layer may replay it").isTrue();
      assertThat(open.status.isDone()).as("the open call ended with the queued one").isFalse();

      open.stream.halfClose();
      assertThat(open.status.get(10, TimeUnit.SECONDS).getCode()).as("the open call drains").isEqualTo(Status.Code.OK);
      assertThat(open.messages).containsExactly("first");
      assertThat(server.headers).as("calls the server saw after GOAWAY").isEmpty();
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client closed the drained connection").isTrue();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }
}
