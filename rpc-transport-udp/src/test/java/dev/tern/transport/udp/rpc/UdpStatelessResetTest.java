package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A restarted server answers its old connections with a stateless reset (RFC 9000 §10.3), on
 * loopback sockets: a relay moves the client's datagrams from the server that made the connection
 * to a fresh server with the same static key, as a restart on the same address would. The client
 * accepts the reset because it carries the token of its connection ID, which only a holder of the
 * server's key can compute; a server with another key cannot reset it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpStatelessResetTest {
  @Test
  void aCallInProgressEndsAtTheRestartedServersReset() throws Exception {
    Loopback.EchoServer before = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.EchoServer after = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.Events events = new Loopback.Events();
    try (Loopback.Relay relay = new Loopback.Relay(before.port())) {
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions(), events);
      try {
        Loopback.Call call = Loopback.open(client, "test.Reset/InProgress", "hello");
        assertThat(call.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
        relay.switchTo(after.port());
        long start = System.nanoTime();
        call.stream.writeMessage(Loopback.utf8("to the restarted server"));
        call.stream.flush();
        Status status = call.status.get(20, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("UdpStatelessResetTest: the call ended " + millis + " ms after writing: "
            + status.getDescription());
        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(status.getDescription()).contains("is gone: the server sent a stateless reset");
        // One round trip on loopback; bounded loosely (a loaded machine) but below the 15 s floor of
        // the silence rule, which the description above also rules out.
        assertThat(millis).isLessThan(5_000L);
        assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription())
            .contains("stateless reset");
        assertThat(after.headers).as("the restarted server made no call of it").isEmpty();
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(before.stop()).isTrue();
      assertThat(after.stop()).isTrue();
    }
  }

  @Test
  void aQuietConnectionsCheckMeetsTheResetAndTheHeldCallIsRefusedAtOnce() throws Exception {
    Loopback.EchoServer before = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.EchoServer after = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.Events events = new Loopback.Events();
    try (Loopback.Relay relay = new Loopback.Relay(before.port())) {
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions()
          .with(TransportOptions.KEEP_ALIVE_MILLIS, 200L), events);
      try {
        assertThat(Loopback.echo(client, "test.Reset/One", "a").status.get(10, TimeUnit.SECONDS).isOk())
            .isTrue();
        Thread.sleep(500); // quiet for more than the keep-alive interval: the next call checks
        relay.switchTo(after.port());
        long start = System.nanoTime();
        Loopback.Call held = Loopback.echo(client, "test.Reset/Two", "b");
        Status status = held.status.get(20, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("UdpStatelessResetTest: the held call was refused after " + millis + " ms: "
            + status.getDescription());
        assertThat(held.refused).as("never sent, safe to send again").isTrue();
        assertThat(status.getDescription()).contains("stateless reset").contains("the call was not sent");
        assertThat(millis).as("the reset, bounded loosely for a loaded machine").isLessThan(5_000L);
        assertThat(after.headers).isEmpty();
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(before.stop()).isTrue();
      assertThat(after.stop()).isTrue();
    }
  }

  @Test
  void aResetFromAServerWithAnotherKeyIsIgnored() throws Exception {
    Loopback.EchoServer before = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.EchoServer impostor = new Loopback.EchoServer(Loopback.serverOptions()
        .with(UdpTransportOptions.SERVER_STATIC_KEY, UdpTransportOptions.newServerKey()));
    Loopback.Events events = new Loopback.Events();
    try (Loopback.Relay relay = new Loopback.Relay(before.port())) {
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions(), events);
      try {
        Loopback.Call call = Loopback.open(client, "test.Reset/Impostor", "hello");
        assertThat(call.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
        relay.switchTo(impostor.port());
        call.stream.writeMessage(Loopback.utf8("to a server with another key"));
        call.stream.flush();
        Status status = call.status.get(30, TimeUnit.SECONDS);
        // Its resets carry tokens of another key: dropped as packets that do not open, and the
        // silence rule (three probe timeouts, 5 s) ends the connection instead.
        assertThat(status.getDescription()).contains("the peer stopped answering")
            .doesNotContain("stateless reset");
        assertThat(Loopback.clientStat(client, s -> s.statelessResetsReceived)).isZero();
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } catch (IllegalStateException terminated) {
      // clientStat after the client ended: the assertion on the description stands
    } finally {
      assertThat(before.stop()).isTrue();
      assertThat(impostor.stop()).isTrue();
    }
  }
}
