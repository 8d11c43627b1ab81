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
 * A path that dies without a word (every datagram lost both ways): a call that sends into it ends
 * once three probe timeouts pass with nothing heard (RFC 9002 §6.2), long before the idle timeout;
 * a call that sends nothing ends at the idle timeout (RFC 9000 §10.1). Either way the status says
 * which, rather than a bare "closed".
 */
class DeadPathTest {
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aCallSendingIntoADeadPathFailsAfterThreeProbeTimeouts() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions());
    Harness.TransportEvents events = new Harness.TransportEvents();
    QuicClientTransport client = null;
    try (UdpRelay relay = new UdpRelay(new InetSocketAddress("127.0.0.1", server.port()))) {
      int port = relay.address().getPort();
      // The default idle timeout (60 s): only the probe timeouts can end the call within the test.
      client = (QuicClientTransport) Harness.PROVIDER.newClientTransport(relay.address(), "localhost:" + port,
          Harness.clientOptions());
      client.start(events);
      Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream").build());
      // Round trips enough for quiche's smoothed RTT to come down from the handshake's (a cold
      // JVM's first samples can be hundreds of ms): the probe timeouts are counted from it.
      int rounds = 40;
      call.stream.request(rounds + 1);
      for (int i = 0; i < rounds; i++) {
        call.stream.writeMessage(utf8("before " + i));
        call.stream.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (call.messages.size() <= i && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        assertThat(call.messages).hasSizeGreaterThan(i);
      }
      relay.blackHole();
      long start = System.nanoTime();
      call.stream.writeMessage(utf8("after"));
      call.stream.flush();

      Status status = call.status.get(20, TimeUnit.SECONDS);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      System.out.println("DeadPathTest: the call failed " + millis + " ms after writing into the dead path: " + status);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("is dead: the peer stopped answering").contains("probe timeouts");
      assertThat(millis).as("well before the 60 s idle timeout").isLessThan(15_000);
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

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aQuietCallOnAPathThatDiedFailsAtTheIdleTimeoutWithAStatusNamingIt() throws Exception {
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
      assertThat(relay.awaitToClientBytes(1, 10_000)).isTrue();
      // Nothing is sent after this: no probe timeout runs, and the idle timeout decides.
      relay.blackHole();

      Status status = call.status.get(20, TimeUnit.SECONDS);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).contains("timed out").contains("idle timeout (1000 ms asked)");
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
