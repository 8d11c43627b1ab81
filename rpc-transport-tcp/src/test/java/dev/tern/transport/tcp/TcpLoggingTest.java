package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.Echo;
import dev.tern.conformance.LogCapture;
import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernTls;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tern over TCP keeps grpc-java's and Netty's per-connection chatter out of the application's log:
 * a call failed with RESOURCE_EXHAUSTED, or a client speaking TLS to a plaintext port, prints
 * nothing at INFO or above; the same events are kept at FINE under dev.tern.
 */
@Timeout(60)
class TcpLoggingTest {
  private static final TestCertificates CERTS = TestCertificates.generate();

  @Test
  void aResourceExhaustedCallPrintsNoGrpcOrNettyLine() throws Exception {
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
        .usePlaintext().maxInboundMessageSize(16).build();
    List<String> lines;
    try (LogCapture log = LogCapture.start()) {
      assertThat(Echo.call(channel, "short")).isEqualTo("short");
      Status s = Echo.failure(channel, "a response longer than sixteen bytes");
      assertThat(s.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(Echo.call(channel, "again")).isEqualTo("again");
      channel.shutdown();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      server.shutdown();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      lines = log.lines();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
    }
    assertThat(lines).as("log lines at INFO and above").noneMatch(TcpLoggingTest::loud);
  }

  @Test
  void aTlsClientOnAPlaintextPortPrintsNothingOnTheServerAboveFine() throws Exception {
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress("localhost", server.getPort()).transports("tcp")
        .tls(TernTls.newBuilder().trustManager(new ByteArrayInputStream(CERTS.certificatePem())).build()).build();
    Logger tern = Logger.getLogger("dev.tern.transport.tcp");
    Level before = tern.getLevel();
    tern.setLevel(Level.FINE);
    // Malformed connections are logged at most once per 10 s, JVM-wide: a test that made one just
    // before leaves this one counted but not logged.
    long countedBefore = QuietGrpcLogs.MALFORMED.count();
    boolean lineDue = QuietGrpcLogs.MALFORMED.wouldLog();
    List<String> lines;
    try (LogCapture log = LogCapture.start()) {
      assertThat(Echo.failure(channel, "hi").getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      channel.shutdown();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      server.shutdown();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      lines = log.lines();
    } finally {
      tern.setLevel(before);
      channel.shutdownNow();
      server.shutdownNow();
    }
    assertThat(lines).as("log lines").noneMatch(TcpLoggingTest::loud);
    assertThat(QuietGrpcLogs.MALFORMED.count()).as("the failed connection, counted").isGreaterThan(countedBefore);
    if (lineDue) {
      assertThat(lines).as("the failed connection, kept at FINE under dev.tern")
          .anyMatch(l -> l.startsWith("FINE dev.tern.transport.tcp") && l.contains("client preface"));
    }
  }

  @Test
  void nettysMissingHardwareAddressWarningIsKeptAtFine() throws Exception {
    // Printed once per JVM, by whichever Netty channel comes first, so it is logged here directly
    // once a transport has been made.
    new TcpTransportProvider().newServerTransport(new InetSocketAddress("127.0.0.1", 0),
        dev.tern.rpc.spi.TransportOptions.defaults());
    Logger tern = Logger.getLogger("dev.tern.transport.tcp");
    Level before = tern.getLevel();
    tern.setLevel(Level.FINE);
    List<String> lines;
    try (LogCapture log = LogCapture.start()) {
      Logger.getLogger("io.netty.util.internal.MacAddressUtil")
          .warning("Failed to find a usable hardware address from the network interfaces; using random bytes: 01");
      Logger.getLogger("io.netty.util.internal.MacAddressUtil").warning("another warning");
      lines = log.lines();
    } finally {
      tern.setLevel(before);
    }
    assertThat(lines).containsExactly(
        "FINE dev.tern.transport.tcp: io.netty.util.internal.MacAddressUtil: Failed to find a usable hardware"
            + " address from the network interfaces; using random bytes: 01",
        "WARNING io.netty.util.internal.MacAddressUtil: another warning");
  }

  private static boolean loud(String line) {
    return !line.startsWith("FINE") && !line.startsWith("FINER") && !line.startsWith("FINEST");
  }
}
