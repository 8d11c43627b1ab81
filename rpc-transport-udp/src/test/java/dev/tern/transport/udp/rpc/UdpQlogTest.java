package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.internal.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link UdpTransportOptions#QLOG_DIR}: both ends of a connection write a qlog file in the
 * streaming JSON-SEQ form qlog tools read (RFC 7464 records), which names the connection and
 * holds its packets, losses and recovery state.
 */
@Timeout(60)
class UdpQlogTest {
  @Test
  void bothEndsLogTheirPacketsLossesAndRecoveryState(@TempDir Path dir) throws Exception {
    Path clientDir = dir.resolve("client");
    Path serverDir = dir.resolve("server");
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(UdpTransportOptions.QLOG_DIR, serverDir)
        // Loss, so that the logs have losses in them.
        .with(UdpTransportOptions.IMPAIRMENT, dev.tern.rpc.spi.DatagramImpairment.loss(0.05, 7)));
    Loopback.Events clientEvents = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(),
        Loopback.clientOptions().with(UdpTransportOptions.QLOG_DIR, clientDir), clientEvents);
    long packetsSent;
    try {
      Loopback.Call call = Loopback.echo(client, "test.Qlog/Echo", "z".repeat(500_000));
      assertThat(call.status.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      packetsSent = Loopback.clientStat(client, st -> st.packetsSent);
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(clientEvents.terminated.await(10, TimeUnit.SECONDS)).isTrue(); // file closed
      assertThat(server.stop()).isTrue();
    }

    Path clientLog = only(clientDir);
    Path serverLog = only(serverDir);
    assertThat(clientLog.getFileName().toString()).startsWith("client-").endsWith(".sqlog");
    // Both ends name the connection by its original Destination Connection ID.
    assertThat(serverLog.getFileName().toString())
        .isEqualTo(clientLog.getFileName().toString().replace("client-", "server-"));

    List<Map<String, ?>> clientRecords = records(clientLog);
    Map<String, ?> header = clientRecords.get(0);
    assertThat(header.get("qlog_format")).isEqualTo("JSON-SEQ");
    assertThat(header.get("qlog_version")).isEqualTo("0.3");
    assertThat(header.toString()).contains("type=client");
    List<Map<String, ?>> events = clientRecords.subList(1, clientRecords.size());
    assertThat(count(events, "transport:packet_sent")).as("client packets sent")
        .isGreaterThanOrEqualTo(packetsSent);
    assertThat(count(events, "transport:packet_received")).isPositive();
    assertThat(count(events, "recovery:packet_lost")).as("the 5% the server's socket dropped")
        .isPositive();
    Map<String, ?> metrics = first(events, "recovery:metrics_updated");
    @SuppressWarnings("unchecked")
    Map<String, ?> data = (Map<String, ?>) metrics.get("data");
    assertThat((Double) data.get("congestion_window")).isPositive();
    assertThat((Double) data.get("smoothed_rtt")).isGreaterThanOrEqualTo(0.0);
    assertThat(count(events, "connectivity:connection_closed")).isEqualTo(1);
    double last = -1;
    for (Map<String, ?> e : events) {
      double t = (Double) e.get("time");
      assertThat(t).as("times only grow").isGreaterThanOrEqualTo(last);
      last = t;
    }
    List<Map<String, ?>> serverRecords = records(serverLog);
    assertThat(serverRecords.get(0).toString()).contains("type=server");
    assertThat(count(serverRecords, "transport:packet_received")).isPositive();
    assertThat(count(serverRecords, "recovery:packet_lost")).isPositive();
  }

  @Test
  void withoutTheOptionNothingIsWritten(@TempDir Path dir) throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions(),
        new Loopback.Events());
    try {
      Loopback.Call call = Loopback.echo(client, "test.Qlog/Echo", "quiet");
      assertThat(call.status.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(Loopback.clientStat(client, st -> st.packetsSent)).isPositive();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  private static Path only(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> all = files.toList();
      assertThat(all).as("files in %s", dir).hasSize(1);
      return all.get(0);
    }
  }

  /** Each RFC 7464 record: a record separator, one JSON text, a line feed. */
  @SuppressWarnings("unchecked")
  private static List<Map<String, ?>> records(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    assertThat(text).startsWith("\u001e").endsWith("\n");
    List<Map<String, ?>> out = new ArrayList<>();
    for (String record : text.substring(1).split("\u001e")) {
      assertThat(record).endsWith("\n");
      out.add((Map<String, ?>) JsonParser.parse(record.trim()));
    }
    return out;
  }

  private static long count(List<Map<String, ?>> events, String name) {
    return events.stream().filter(e -> name.equals(e.get("name"))).count();
  }

  private static Map<String, ?> first(List<Map<String, ?>> events, String name) {
    return events.stream().filter(e -> name.equals(e.get("name"))).findFirst().orElseThrow();
  }
}
