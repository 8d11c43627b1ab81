package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.PROVIDER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection snapshots (which the call layer takes for every call's attributes) come from a cache:
 * they never wait for the event loop, and they hold a call's bytes once the call has ended.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class QuicStatsTest {
  @Test
  void aSnapshotNeverWaitsForABusyEventLoopAndHoldsTheLastCallsBytes() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions());
    Harness.TransportEvents events = new Harness.TransportEvents();
    QuicClientTransport client = (QuicClientTransport) PROVIDER.newClientTransport(
        new InetSocketAddress("127.0.0.1", server.port()), "localhost:" + server.port(), Harness.clientOptions());
    client.start(events);
    CountDownLatch release = new CountDownLatch(1);
    try {
      events.ready.get(10, TimeUnit.SECONDS);
      Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Bulk").build());
      call.stream.request(1);
      call.stream.writeMessage(ByteBuffer.allocate(64 * 1024));
      call.stream.halfClose();
      assertThat(call.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      ConnectionInfo afterCall = client.connectionInfo();
      assertThat(afterCall.bytesSent()).as("bytes sent once the call ended").isGreaterThan(64L * 1024);
      assertThat(afterCall.bytesReceived()).as("bytes received once the call ended").isGreaterThan(64L * 1024);

      CountDownLatch blocked = new CountDownLatch(1);
      client.eventLoop().execute(() -> {
        blocked.countDown();
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
      long start = System.nanoTime();
      ConnectionInfo busy = client.connectionInfo();
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      release.countDown();
      assertThat(tookMillis).as("ms a snapshot took while the event loop was busy").isLessThan(100);
      assertThat(busy.bytesReceived()).as("cached bytes received").isEqualTo(afterCall.bytesReceived());
      assertThat(busy.smoothedRttNanos()).as("cached smoothed RTT").isPositive();
      assertThat(busy.remoteAddress()).isEqualTo(afterCall.remoteAddress());
    } finally {
      release.countDown();
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }
}
