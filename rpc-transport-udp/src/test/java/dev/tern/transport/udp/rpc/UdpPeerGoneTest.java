package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server gone without a word, as after a crash or a restart, on the {@code udp} transport over
 * loopback sockets: a call sending into the silence ends after three probe timeouts (RFC 9002
 * §6.2) rather than at the 30 s idle timeout; an ICMP port unreachable ends the connection at
 * once; a connection that heard nothing for a keep-alive interval is checked with a PING before a
 * call goes out on it, and a call held so for a peer that never answers is refused unprocessed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpPeerGoneTest {
  private static final long INTERVAL_MILLIS = 200;

  /** Sleeps for more than a keep-alive interval with nothing sent: a precondition, not a check. */
  private static void stayQuiet() throws InterruptedException {
    Thread.sleep(2 * INTERVAL_MILLIS + 100);
  }

  @Test
  void aCallSendingIntoASilentPeerEndsAfterThreeProbeTimeouts() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.Events events = new Loopback.Events();
    try (Loopback.Relay relay = new Loopback.Relay(server.port())) {
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions(), events);
      try {
        Loopback.Call call = Loopback.open(client, "test.Gone/Silent", "hello");
        assertThat(call.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
        relay.blackHole = true;
        long start = System.nanoTime();
        call.stream.writeMessage(Loopback.utf8("into the silence"));
        call.stream.flush();
        Status dead = call.status.get(45, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("UdpPeerGoneTest: the call failed " + millis + " ms after writing into the silence: "
            + dead);
        assertThat(dead.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(dead.getDescription()).contains("is dead: the peer stopped answering")
            .contains("probe timeouts");
        // The floor counts from the first packet that drew no answer, which may have left a few
        // ms before this test's clock started: 14 s shows the floor ruled, not three probe
        // timeouts (well under 1 s here); the idle timeout (30 s) would say "timed out".
        assertThat(millis).as("about the 15 s floor, before the 30 s idle timeout")
            .isBetween(14_000L, 29_000L);
        assertThat(events.shutdown.get(10, TimeUnit.SECONDS).getDescription()).contains("stopped answering");
        assertThat(events.terminated.await(10, TimeUnit.SECONDS)).isTrue();
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }

  /**
   * A call that keeps writing (a message every 100 ms) into a silent peer: each packet re-arms the
   * probe timer, which then never expires once backed off past 100 ms, so the probe timeouts alone
   * never reach three; the silence since the first unanswered packet ends it at the same floor.
   * Before, only the 30 s idle timeout did.
   */
  @Test
  void aCallKeptBusyIntoASilentPeerEndsAtTheFloorNotTheIdleTimeout() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.Events events = new Loopback.Events();
    java.util.concurrent.ScheduledExecutorService ticker = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    try (Loopback.Relay relay = new Loopback.Relay(server.port())) {
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions(), events);
      try {
        Loopback.Call call = Loopback.open(client, "test.Gone/Busy", "hello");
        assertThat(call.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
        relay.blackHole = true;
        long start = System.nanoTime();
        ticker.scheduleAtFixedRate(() -> {
          if (!call.status.isDone()) {
            call.stream.writeMessage(Loopback.utf8("still here?"));
            call.stream.flush();
          }
        }, 0, 100, TimeUnit.MILLISECONDS);
        Status dead = call.status.get(45, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("UdpPeerGoneTest: the busy call failed " + millis + " ms after the path went silent: "
            + dead);
        assertThat(dead.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(dead.getDescription()).contains("is dead: the peer stopped answering");
        assertThat(millis).as("about the 15 s floor, before the 30 s idle timeout").isBetween(14_000L, 29_000L);
      } finally {
        ticker.shutdownNow();
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aServerGoneFromItsPortEndsTheConnectionAtTheFirstPortUnreachable() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.Events events = new Loopback.Events();
    Loopback.Relay relay = new Loopback.Relay(server.port());
    UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions(), events);
    try {
      Loopback.Call call = Loopback.open(client, "test.Gone/Port", "hello");
      assertThat(call.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
      relay.close(); // the address the client knows the server by has nothing behind it
      long start = System.nanoTime();
      call.stream.writeMessage(Loopback.utf8("to nobody"));
      call.stream.flush();
      Status dead = call.status.get(25, TimeUnit.SECONDS);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      System.out.println("UdpPeerGoneTest: the call failed " + millis + " ms after writing to the closed port: "
          + dead.getDescription());
      assertThat(dead.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(dead.getDescription()).contains("port unreachable").contains("crashed or is restarting");
      // The ICMP error decided (the description says so), before the silence rule's 15 s floor.
      assertThat(millis).isLessThan(5_000L);
    } finally {
      relay.close();
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aQuietConnectionIsCheckedBeforeACallAndACallHeldForASilentPeerIsRefusedUnsent() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.Events events = new Loopback.Events();
    try (Loopback.Relay relay = new Loopback.Relay(server.port())) {
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions()
          .with(TransportOptions.KEEP_ALIVE_MILLIS, INTERVAL_MILLIS), events);
      try {
        assertThat(Loopback.echo(client, "test.Gone/One", "a").status.get(10, TimeUnit.SECONDS).isOk()).isTrue();
        assertThat(Loopback.clientStat(client, s -> s.quietCheckPingsSent)).isZero();

        stayQuiet();
        assertThat(Loopback.echo(client, "test.Gone/Two", "b").status.get(10, TimeUnit.SECONDS).isOk()).isTrue();
        assertThat(Loopback.clientStat(client, s -> s.quietCheckPingsSent))
            .as("the PING that checked the quiet connection").isEqualTo(1);
        assertThat(server.headers).hasSize(2);

        stayQuiet();
        relay.blackHole = true;
        long start = System.nanoTime();
        Loopback.Call held = Loopback.echo(client, "test.Gone/Three", "c");
        Status status = held.status.get(25, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("UdpPeerGoneTest: the held call was refused after " + millis + " ms: "
            + status.getDescription());
        assertThat(held.refused).as("refused unprocessed, safe to send again").isTrue();
        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(status.getDescription()).contains("the peer stopped answering").contains("the call was not sent");
        assertThat(millis).as("about the check's 500 ms floor, or three probe timeouts")
            .isBetween(400L, 15_000L);
        assertThat(server.headers).as("the server never saw the held call").hasSize(2);
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }
}
