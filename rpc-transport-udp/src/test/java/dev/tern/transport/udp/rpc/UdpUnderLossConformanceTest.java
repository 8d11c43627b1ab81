package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The whole conformance suite over {@code udp} while the server's socket drops 5% of the
 * datagrams it sends and receives (so each direction of every connection loses 5%), reorders 2%
 * (a datagram held back behind the next) and duplicates 1%, from a fixed seed: the SPI-level
 * cases and the end-to-end ones (whose server is built with the same option).
 */
class UdpUnderLossConformanceTest extends UdpConformanceTest {
  /** The impairment of this run; {@link UdpUnderLightLossConformanceTest} lowers it. */
  protected DatagramImpairment impairment() {
    return DatagramImpairment.of(0.05, 0.01, 0.02, 20261207L);
  }

  /**
   * The server's idle timeout in this run, 4 s, not 30: a client's CONNECTION_CLOSE that the
   * impairment drops is never sent again (RFC 9000 §10.2.1: a closing endpoint answers packets,
   * and after a close the server sends none), so the server learns the connection ended only when
   * its idle timeout runs out, which the cases that wait for a connection's end (20 s) would not
   * see at 30 s.
   */
  static final long IDLE_TIMEOUT_MILLIS = 4_000;

  @Override
  protected TransportOptions serverOptions() {
    return super.serverOptions().with(UdpTransportOptions.IMPAIRMENT, impairment())
        .with(UdpTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, IDLE_TIMEOUT_MILLIS);
  }

  @Override
  protected TernServerBuilder configureServer(TernServerBuilder builder) {
    return super.configureServer(builder).transportOption(UdpTransportOptions.IMPAIRMENT,
        impairment()).transportOption(UdpTransportOptions.MAX_IDLE_TIMEOUT_MILLIS,
        IDLE_TIMEOUT_MILLIS);
  }

  @Override
  protected Duration timeout() {
    // A lost handshake datagram waits for the probe timeout of a path with no RTT sample yet
    // (999 ms, RFC 9002 §6.2.2), doubling with each loss in a row.
    return Duration.ofSeconds(20);
  }

  /**
   * The suite above proves something only if the impairment is in force: a 2 MB echo through a
   * server built the same way arrives whole, and the client's statistics show packets lost (its
   * datagrams the server's socket dropped) and resent.
   */
  @Test
  void theServersSocketLosesDatagramsAndTheCallsRecover() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(
        Loopback.serverOptions().with(UdpTransportOptions.IMPAIRMENT, impairment()));
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions(),
        new Loopback.Events());
    try {
      String text = "y".repeat(2_000_000);
      Loopback.Call call = Loopback.echo(client, "test.Impaired/Echo", text);
      assertThat(call.status.get(60, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(call.messages.poll(10, TimeUnit.SECONDS)).as("the echo").isEqualTo(text);
      ConnectionInfo info = client.connectionInfo();
      assertThat(info.packetsLost()).as("client packets declared lost").isPositive();
      assertThat(info.packetsRetransmitted()).as("client packets resent").isPositive();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }
}
