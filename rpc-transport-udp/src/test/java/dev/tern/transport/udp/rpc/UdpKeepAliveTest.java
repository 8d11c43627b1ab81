package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Keep-alive on the {@code udp} transport over loopback sockets (docs/protocol.md §10.7): the
 * PINGs defer the protocol's idle timeout while a call is open (RFC 9000 §10.1.2), and without
 * calls only if asked to; with keep-alive off the idle timeout ends a quiet call; a PING that
 * draws nothing within the keep-alive timeout ends the connection with a status that says so.
 * The idle timeout is shortened to 2 s so that each case takes seconds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpKeepAliveTest {
  private static final long IDLE_MILLIS = 2_000;
  /** Three idle timeouts: what a connection left to itself would not outlive. */
  private static final long QUIET_MILLIS = 3 * IDLE_MILLIS;
  private static final long OFF = TimeUnit.DAYS.toMillis(1000);

  private static TransportOptions shortIdle(TransportOptions o) {
    return o.with(UdpTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, IDLE_MILLIS);
  }

  @Test
  void aQuietCallOutlivesTheIdleTimeoutWithTheDefaultKeepAlive() throws Exception {
    // The server's keep-alive is off, so that the client's own PINGs (15 s by default, capped at
    // half the 2 s idle timeout) are what keep the call.
    Loopback.EchoServer server = new Loopback.EchoServer(shortIdle(Loopback.serverOptions())
        .with(TransportOptions.KEEP_ALIVE_MILLIS, OFF));
    Loopback.Events events = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(), shortIdle(Loopback.clientOptions()),
        events);
    try {
      Loopback.Call call = Loopback.open(client, "test.KeepAlive/Quiet", "hello");
      assertThat(call.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
      assertThatThrownBy(() -> call.status.get(QUIET_MILLIS, TimeUnit.MILLISECONDS))
          .as("the call ended while quiet").isInstanceOf(TimeoutException.class);
      // One per half idle timeout (and its acknowledgement's delay) of the 6 s; the PINGs a
      // waiting call sends first (after 1, 2, 4... probe timeouts) defer the keep-alive's, as
      // any packet sent does, and keep the bindings as well.
      assertThat(Loopback.clientStat(client, s -> s.keepAlivePingsSent + s.waitingPingsSent))
          .as("PINGs about every half idle timeout").isGreaterThanOrEqualTo(4);
      call.stream.halfClose();
      assertThat(call.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(events.shutdown).isNotDone();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void withKeepAliveOffOnBothSidesTheIdleTimeoutEndsAQuietCall() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(shortIdle(Loopback.serverOptions())
        .with(TransportOptions.KEEP_ALIVE_MILLIS, OFF));
    Loopback.Events events = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(), shortIdle(Loopback.clientOptions())
        .with(TransportOptions.KEEP_ALIVE_MILLIS, OFF), events);
    try {
      Loopback.Call call = Loopback.open(client, "test.KeepAlive/Quiet", "hello");
      assertThat(call.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
      Status cut = call.status.get(10, TimeUnit.SECONDS);
      assertThat(cut.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(cut.getDescription()).contains("idle timeout");
      assertThat(call.refused).as("the call had been processed").isFalse();
      assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription())
          .contains("idle timeout");
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void anUnansweredPingEndsTheConnectionAfterTheKeepAliveTimeout() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(TransportOptions.KEEP_ALIVE_MILLIS, OFF));
    Loopback.Events events = new Loopback.Events();
    try (Loopback.Relay relay = new Loopback.Relay(server.port())) {
      // The idle timeout stays at 30 s: the keep-alive timeout is what notices the dead path.
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions()
          .with(TransportOptions.KEEP_ALIVE_MILLIS, 200L)
          .with(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS, 300L), events);
      try {
        Loopback.Call call = Loopback.open(client, "test.KeepAlive/Dead", "hello");
        assertThat(call.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
        long cutAt = System.nanoTime();
        relay.blackHole = true;
        Status dead = call.status.get(25, TimeUnit.SECONDS);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
        assertThat(dead.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(dead.getDescription()).contains("keep-alive PING unanswered for 300 ms");
        // One interval of quiet, then the timeout: about half a second, far from the 30 s idle
        // timeout.
        assertThat(tookMillis).isLessThan(5_000);
        assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription())
            .contains("keep-alive");
        assertThat(events.terminated.await(10, TimeUnit.SECONDS)).isTrue();
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void withoutCallsTheConnectionIsKeptOnlyWithKeepAliveWithoutCalls() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(shortIdle(Loopback.serverOptions()));
    Loopback.Events kept = new Loopback.Events();
    Loopback.Events left = new Loopback.Events();
    UdpClientTransport keeping = Loopback.connect(server.port(), shortIdle(Loopback.clientOptions())
        .with(TransportOptions.KEEP_ALIVE_WITHOUT_CALLS, true), kept);
    UdpClientTransport leaving = Loopback.connect(server.port(), shortIdle(Loopback.clientOptions()),
        left);
    try {
      assertThat(Loopback.echo(keeping, "test.KeepAlive/One", "a").status.get(10, TimeUnit.SECONDS)
          .getCode()).isEqualTo(Status.Code.OK);
      assertThat(Loopback.echo(leaving, "test.KeepAlive/One", "b").status.get(10, TimeUnit.SECONDS)
          .getCode()).isEqualTo(Status.Code.OK);
      // No call open on either: the one that pings without calls outlives the idle timeout.
      Status timedOut = left.shutdown.get(10, TimeUnit.SECONDS);
      assertThat(timedOut.getDescription()).contains("idle timeout");
      assertThatThrownBy(() -> kept.shutdown.get(QUIET_MILLIS, TimeUnit.MILLISECONDS))
          .as("the connection kept without calls").isInstanceOf(TimeoutException.class);
      assertThat(Loopback.echo(keeping, "test.KeepAlive/Two", "c").status.get(10, TimeUnit.SECONDS)
          .getCode()).isEqualTo(Status.Code.OK);
    } finally {
      keeping.shutdownNow(Status.CANCELLED.withDescription("test over"));
      leaving.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aServersKeepAliveTimeKeepsConnectionsWithoutCalls() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(shortIdle(Loopback.serverOptions())
        .with(TransportOptions.KEEP_ALIVE_MILLIS, 200L));
    Loopback.Events events = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(), shortIdle(Loopback.clientOptions()),
        events);
    try {
      assertThat(Loopback.echo(client, "test.KeepAlive/One", "a").status.get(10, TimeUnit.SECONDS)
          .getCode()).isEqualTo(Status.Code.OK);
      // The client does not ping without calls; the server's PINGs, which it acknowledges, keep
      // both idle timers from running out.
      assertThatThrownBy(() -> events.shutdown.get(QUIET_MILLIS, TimeUnit.MILLISECONDS))
          .as("the connection the server keeps alive").isInstanceOf(TimeoutException.class);
      assertThat(Loopback.clientStat(client, s -> s.keepAlivePingsSent)).isZero();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aNegativeIdleTimeoutIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> Loopback.PROVIDER.newServerTransport(
        new java.net.InetSocketAddress("127.0.0.1", 0), Loopback.serverOptions()
            .with(UdpTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, -1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("udp.maxIdleTimeoutMillis").hasMessageContaining("-1");
  }
}
