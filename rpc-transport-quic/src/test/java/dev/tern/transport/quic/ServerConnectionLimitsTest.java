package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.PROVIDER;
import static dev.tern.transport.quic.Harness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's connection limits on QUIC, as grpc-netty carries them out: a connection with no
 * call for {@code maxConnectionIdle} is sent GOAWAY; a connection past {@code maxConnectionAge}
 * is sent GOAWAY and, once {@code maxConnectionAgeGrace} has passed too, closed with its calls;
 * a drained connection refuses new streams unprocessed.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServerConnectionLimitsTest {

  private static ClientTransport connect(Harness.EchoServer server, Harness.TransportEvents events) throws Exception {
    ClientTransport client = PROVIDER.newClientTransport(new InetSocketAddress("127.0.0.1", server.port()),
        "localhost:" + server.port(), Harness.clientOptions());
    client.start(events);
    events.ready.get(10, TimeUnit.SECONDS);
    return client;
  }

  private static Harness.Call echo(ClientTransport client, String text) {
    Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Limits").build());
    call.stream.request(1);
    call.stream.writeMessage(utf8(text));
    call.stream.halfClose();
    return call;
  }

  @Test
  void aConnectionWithNoCallForTheIdleTimeIsSentGoAway() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(TransportOptions.IDLE_TIMEOUT_MILLIS, 500L));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = connect(server, events);
    try {
      Harness.Call call = echo(client, "before idle");
      assertThat(call.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      // Idle from the call's end: GOAWAY about 0.5 s later; the client then closes the connection.
      Status shutdown = events.shutdown.get(10, TimeUnit.SECONDS);
      assertThat(shutdown.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(shutdown.getDescription()).contains("GOAWAY");
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client closed the drained connection").isTrue();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aConnectionWithACallOpenIsNotIdle() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(TransportOptions.IDLE_TIMEOUT_MILLIS, 300L));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = connect(server, events);
    try {
      Harness.Call open = Harness.call(client, RequestHeaders.builder("test.Echo/Open").build());
      open.stream.request(2);
      open.stream.writeMessage(utf8("first"));
      open.stream.flush();
      assertThat(open.headers.get(10, TimeUnit.SECONDS)).isNotNull();
      // Four idle times with the call open: no GOAWAY comes.
      assertThatThrownBy(() -> events.shutdown.get(1_200, TimeUnit.MILLISECONDS))
          .as("GOAWAY while a call was open").isInstanceOf(java.util.concurrent.TimeoutException.class);
      open.stream.halfClose();
      assertThat(open.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription()).contains("GOAWAY");
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void pastItsAgeAndGraceAConnectionIsClosedWithItsCalls() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(TransportOptions.MAX_CONNECTION_AGE_MILLIS, 400L)
        .with(TransportOptions.MAX_CONNECTION_AGE_GRACE_MILLIS, 600L));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = connect(server, events);
    try {
      Harness.Call open = Harness.call(client, RequestHeaders.builder("test.Echo/Open").build());
      open.stream.request(2);
      open.stream.writeMessage(utf8("first"));
      open.stream.flush();
      assertThat(open.headers.get(10, TimeUnit.SECONDS)).isNotNull();
      // GOAWAY at 360-440 ms of age, then the call runs in its grace time.
      assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription()).contains("GOAWAY");
      Harness.Call late = echo(client, "after GOAWAY");
      Status lateStatus = late.status.get(10, TimeUnit.SECONDS);
      assertThat(lateStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(late.refused).as("a call after GOAWAY is refused unprocessed").isTrue();
      // The grace ends 600 ms after GOAWAY: the open call is cut.
      Status cut = open.status.get(10, TimeUnit.SECONDS);
      assertThat(cut.getCode()).as("open call past the grace: %s", cut).isNotEqualTo(Status.Code.OK);
      assertThat(open.refused).as("the open call had been processed").isFalse();
      assertThat(server.headers).extracting(RequestHeaders::fullMethodName).containsExactly("test.Echo/Open");
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
