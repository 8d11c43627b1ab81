package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.ConnectionInfo;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client's {@link ConnectionInfo} follows its connection's statistics on real sockets. */
@Timeout(60)
class UdpConnectionInfoTest {

  @Test
  void aCallThatEndedIsInTheStatisticsItsListenerReads() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions(),
        new Loopback.Events());
    try {
      ConnectionInfo before = client.connectionInfo();
      String text = "x".repeat(60_000);
      Loopback.Call call = Loopback.echo(client, "test.Info/Echo", text);
      assertThat(call.status.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      // Read when the call's end is reported, with no wait: the snapshot is taken before it.
      ConnectionInfo after = client.connectionInfo();
      assertThat(after.bytesSent() - before.bytesSent()).as("bytes sent for the call")
          .isGreaterThanOrEqualTo(text.length());
      assertThat(after.packetsSent() - before.packetsSent()).as("packets sent for the call")
          .isGreaterThanOrEqualTo(text.length() / 1500);
      assertThat(after.bytesReceived() - before.bytesReceived()).as("bytes received (the echo)")
          .isGreaterThanOrEqualTo(text.length());
      assertThat(after.smoothedRttNanos()).isPositive();
      assertThat(after.bytesInFlight()).as("bytes in flight").isBetween(0L, after.bytesSent());
      assertThat(after.pathChanges()).as("path changes").isZero();
      assertThat(after.earlyDataAccepted()).as("early data on a full handshake").isFalse();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }
}
