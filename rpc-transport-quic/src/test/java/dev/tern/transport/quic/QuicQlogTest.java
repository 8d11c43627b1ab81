package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link QuicTransportOptions#QLOG_DIR}: quiche writes each connection's qlog, on the client and
 * on the server, into the directory given.
 */
class QuicQlogTest {
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void bothEndsWriteQuichesQlogOfTheirConnection(@TempDir Path dir) throws Exception {
    Path serverDir = dir.resolve("server");
    Path clientDir = dir.resolve("client");
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(QuicTransportOptions.QLOG_DIR, serverDir));
    Harness.TransportEvents events = new Harness.TransportEvents();
    QuicClientTransport client = (QuicClientTransport) Harness.PROVIDER.newClientTransport(
        new InetSocketAddress("127.0.0.1", server.port()), "localhost:" + server.port(),
        Harness.clientOptions().with(QuicTransportOptions.QLOG_DIR, clientDir));
    try {
      client.start(events);
      Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Unary").build());
      call.stream.request(1);
      call.stream.writeMessage(utf8("logged"));
      call.stream.halfClose();
      assertThat(call.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(call.messages).containsExactly("logged");
    } finally {
      client.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
      assertThat(events.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
    for (Path d : List.of(clientDir, serverDir)) {
      String log = onlyLog(d);
      assertThat(log).as("the qlog in %s", d).contains("JSON-SEQ").contains("packet_sent")
          .contains("packet_received");
    }
  }

  /** The one qlog file in {@code dir}, once it holds a received packet. */
  private static String onlyLog(Path dir) {
    // quiche writes the file as the connection is freed, on its event loop: wait for it, bounded.
    return Awaitility.await("a qlog with a received packet in " + dir).atMost(10, TimeUnit.SECONDS)
        .pollInterval(20, TimeUnit.MILLISECONDS).until(() -> readOnlyLog(dir),
            text -> text != null && text.contains("packet_received"));
  }

  /** The text of the one .qlog file in {@code dir}, or null while there is not exactly one. */
  private static String readOnlyLog(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> logs = files.filter(p -> p.toString().endsWith(".qlog")).toList();
      return logs.size() == 1 ? Files.readString(logs.get(0), StandardCharsets.UTF_8) : null;
    }
  }
}
