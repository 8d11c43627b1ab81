package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.Echo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections that are not HTTP/2 (an HTTP/1.1 request on the gRPC port, a port scanner's junk)
 * cost the server a counter increment each and at most one FINE line per 10 s, with no stack trace,
 * even with FINE logging on: a peer that opens them by the hundred cannot flood the log.
 */
@Timeout(60)
class MalformedConnectionLoggingTest {
  private static final int CONNECTIONS = 200;
  private final List<LogRecord> records = new ArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      synchronized (records) {
        records.add(r);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final Logger tern = Logger.getLogger("dev.tern.transport.tcp");
  private final Logger grpc = Logger.getLogger("io.grpc.netty.NettyServerTransport.connections");
  private Level ternLevel;
  private Level grpcLevel;

  @BeforeEach
  void captureEverything() {
    ternLevel = tern.getLevel();
    grpcLevel = grpc.getLevel();
    tern.setLevel(Level.ALL);
    grpc.setLevel(Level.ALL);
    capture.setLevel(Level.ALL);
    Logger.getLogger("").addHandler(capture);
    tern.addHandler(capture);
    tern.setUseParentHandlers(false);
  }

  @AfterEach
  void restore() {
    Logger.getLogger("").removeHandler(capture);
    tern.removeHandler(capture);
    tern.setUseParentHandlers(true);
    tern.setLevel(ternLevel);
    grpc.setLevel(grpcLevel);
  }

  @Test
  void twoHundredMalformedConnectionsAreCountedAndLoggedOnceWithoutAStack() throws Exception {
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
        .usePlaintext().build();
    long before = QuietGrpcLogs.MALFORMED.count();
    try {
      byte[] junk = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
      for (int i = 0; i < CONNECTIONS; i++) {
        try (Socket s = new Socket("127.0.0.1", server.getPort())) {
          s.setSoTimeout(10_000);
          OutputStream out = s.getOutputStream();
          out.write(junk);
          out.flush();
          InputStream in = s.getInputStream();
          // The server answers (a GOAWAY naming the bad preface) and closes: read to the end.
          while (in.read() >= 0) {
            // drain
          }
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (QuietGrpcLogs.MALFORMED.count() - before < CONNECTIONS && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(Echo.call(channel, "still serving")).isEqualTo("still serving");
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    long counted = QuietGrpcLogs.MALFORMED.count() - before;
    List<LogRecord> aboutThem = new ArrayList<>();
    synchronized (records) {
      for (LogRecord r : records) {
        String m = new java.util.logging.SimpleFormatter().formatMessage(r);
        if (m.contains("Transport failed") || m.contains("connection failed (protocol error)")) {
          aboutThem.add(r);
        }
      }
    }
    System.out.printf("malformed tcp connections: %d made, %d counted, %d log lines%n", CONNECTIONS, counted,
        aboutThem.size());
    assertThat(counted).as("malformed connections counted").isGreaterThanOrEqualTo(CONNECTIONS);
    assertThat(aboutThem).as("log lines about them in one 10 s window").isNotEmpty().hasSizeLessThanOrEqualTo(2);
    for (LogRecord r : aboutThem) {
      assertThat(r.getLevel()).isEqualTo(Level.FINE);
      assertThat(r.getThrown()).as("no stack trace").isNull();
    }
  }
}
