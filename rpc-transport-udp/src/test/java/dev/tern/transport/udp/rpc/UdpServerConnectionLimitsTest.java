package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's connection limits on {@code udp} over loopback sockets, as grpc-netty carries them
 * out (docs/protocol.md §10.7): a connection with no call for {@code maxConnectionIdle} is drained
 * and closed; one past {@code maxConnectionAge} is drained, its running calls finish (within
 * {@code maxConnectionAgeGrace}, past which they are cut), and a call sent to it meanwhile is
 * refused unprocessed, which also tells the client to send no more calls there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpServerConnectionLimitsTest {

  @Test
  void aConnectionWithNoCallForTheIdleTimeIsDrainedAndClosed() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(TransportOptions.IDLE_TIMEOUT_MILLIS, 500L));
    Loopback.Events events = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions(), events);
    try {
      assertThat(Loopback.echo(client, "test.Limits/BeforeIdle", "x").status
          .get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      // Idle from the call's end: drained about 0.5 s later and, with nothing outstanding,
      // closed at once, the close saying that nothing open here was processed.
      Status shutdown = events.shutdown.get(10, TimeUnit.SECONDS);
      assertThat(shutdown.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(shutdown.getDescription()).contains("application code " + RpcFraming.CLOSE_DRAINED)
          .contains("no call for its maximum idle time");
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client transport ended")
          .isTrue();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aCallWhoseRequestCrossedTheDrainedCloseIsRefusedUnprocessed() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(TransportOptions.IDLE_TIMEOUT_MILLIS, 1_500L));
    Loopback.Events events = new Loopback.Events();
    try (Loopback.Relay relay = new Loopback.Relay(server.port())) {
      // The path below stays one-way for the idle time (1.5 s): the client's dead-peer detection,
      // which would find the silent server after 500 ms, is off, so that the drained close decides.
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions()
          .with(UdpTransportOptions.DEAD_AFTER_PROBE_TIMEOUTS, 0), events);
      try {
        assertThat(Loopback.echo(client, "test.Limits/First", "x").status
            .get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
        // The server has every acknowledgement; from now on nothing of the client's reaches
        // it, so the next call's request is lost as if it crossed the close on the way.
        Loopback.awaitQuiescent(server);
        relay.dropToServer = true;
        Loopback.Call crossed = Loopback.echo(client, "test.Limits/Crossed", "y");
        // The idle time runs out: the server closes the drained connection (code 0x11), and
        // the call it never saw ends as refused unprocessed, for the channel to replay.
        Status status = crossed.status.get(10, TimeUnit.SECONDS);
        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(crossed.refused).as("a call the drained server never saw: %s", status)
            .isTrue();
        assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription())
            .contains("application code " + RpcFraming.CLOSE_DRAINED);
        assertThat(server.headers).extracting(RequestHeaders::fullMethodName)
            .containsExactly("test.Limits/First");
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aConnectionWithACallOpenIsNotIdle() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(TransportOptions.IDLE_TIMEOUT_MILLIS, 300L));
    Loopback.Events events = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions(), events);
    try {
      Loopback.Call open = Loopback.open(client, "test.Limits/Open", "first");
      assertThat(open.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("first");
      // Four idle times with the call open: the connection stays.
      assertThatThrownBy(() -> events.shutdown.get(1_200, TimeUnit.MILLISECONDS))
          .as("drained while a call was open").isInstanceOf(TimeoutException.class);
      open.stream.halfClose();
      assertThat(open.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription())
          .contains("no call for its maximum idle time");
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void pastItsAgeACallIsRefusedWhileTheRunningOneFinishesAndThenTheConnectionCloses()
      throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(TransportOptions.MAX_CONNECTION_AGE_MILLIS, 300L));
    Loopback.Events events = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions(), events);
    try {
      Loopback.Call open = Loopback.open(client, "test.Limits/Open", "first");
      assertThat(open.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("first");
      // The age (270-330 ms from the connection's first datagram) passes with the call open;
      // with no grace set, the call may run as long as it needs.
      assertThatThrownBy(() -> open.status.get(600, TimeUnit.MILLISECONDS))
          .as("the running call past the age").isInstanceOf(TimeoutException.class);
      Loopback.Call late = Loopback.echo(client, "test.Limits/Late", "late");
      assertThat(late.status.get(10, TimeUnit.SECONDS).getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(late.refused).as("a call to a drained connection is refused unprocessed")
          .isTrue();
      Status shutdown = events.shutdown.get(10, TimeUnit.SECONDS);
      assertThat(shutdown.getDescription()).contains("draining");
      // The client takes no more calls here: a new one is refused before it is sent.
      Loopback.Call after = Loopback.echo(client, "test.Limits/After", "after");
      assertThat(after.status.get(10, TimeUnit.SECONDS).getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(after.refused).isTrue();
      // The running call still completes, then the drained connection closes.
      open.stream.writeMessage(Loopback.utf8("second"));
      assertThat(open.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("second");
      open.stream.halfClose();
      assertThat(open.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.headers).extracting(RequestHeaders::fullMethodName)
          .containsExactly("test.Limits/Open");
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void pastItsAgeAndGraceAConnectionIsClosedWithItsCalls() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(TransportOptions.MAX_CONNECTION_AGE_MILLIS, 300L)
        .with(TransportOptions.MAX_CONNECTION_AGE_GRACE_MILLIS, 1_500L));
    Loopback.Events events = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions(), events);
    try {
      Loopback.Call open = Loopback.open(client, "test.Limits/Open", "first");
      assertThat(open.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("first");
      assertThatThrownBy(() -> open.status.get(600, TimeUnit.MILLISECONDS))
          .as("the running call within the grace").isInstanceOf(TimeoutException.class);
      Loopback.Call late = Loopback.echo(client, "test.Limits/Late", "late");
      assertThat(late.status.get(10, TimeUnit.SECONDS).getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(late.refused).isTrue();
      // The grace ends 1.5 s after the age: the open call is cut, as processed.
      Status cut = open.status.get(10, TimeUnit.SECONDS);
      assertThat(cut.getCode()).as("open call past the grace: %s", cut)
          .isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(cut.getDescription()).contains("grace time (1500 ms)");
      assertThat(open.refused).as("the open call had been processed").isFalse();
      assertThat(server.cancels.poll(10, TimeUnit.SECONDS)).as("the server's call was cancelled")
          .isNotNull();
      assertThat(server.headers).extracting(RequestHeaders::fullMethodName)
          .containsExactly("test.Limits/Open");
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }
}
