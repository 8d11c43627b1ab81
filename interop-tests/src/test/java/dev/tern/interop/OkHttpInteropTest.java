package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TransportMemory;
import dev.tern.rpc.TransportSelector;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The mobile client's TCP transport ({@code okhttp}, on grpc-okhttp) runs every interop case
 * against grpc-java's own interop server (grpc-netty, a separate JVM) and against Tern's {@code tcp}
 * server, each in plaintext and over TLS with grpc's test certificates. This module runs grpc-java
 * at tern-bom's version, so it is also the check that grpc-okhttp's client links against it.
 */
@Timeout(180)
class OkHttpInteropTest {
  private static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor();
  private static final List<AutoCloseable> CLOSE = new ArrayList<>();
  private static ManagedChannel toStock;
  private static ManagedChannel toStockTls;
  private static ManagedChannel toTern;
  private static ManagedChannel toTernTls;

  @BeforeAll
  static void start() throws Exception {
    StockPeers.Server stock = StockPeers.Server.start();
    CLOSE.add(stock);
    StockPeers.Server stockTls = StockPeers.Server.start(true);
    CLOSE.add(stockTls);
    toStock = okhttp("127.0.0.1", stock.port).usePlaintext().build();
    toStockTls = okhttp("127.0.0.1", stockTls.port).tls(GrpcTestCertificates.client()).build();
    toTern = okhttp("127.0.0.1", ternServer(false).getPort()).usePlaintext().build();
    toTernTls = okhttp("127.0.0.1", ternServer(true).getPort()).tls(GrpcTestCertificates.client()).build();
  }

  private static TernChannelBuilder okhttp(String host, int port) {
    return TernChannelBuilder.forAddress(host, port).transports("okhttp");
  }

  private static Server ternServer(boolean tls) throws Exception {
    TernServerBuilder builder = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(TernTestService.definition(SCHEDULER));
    if (tls) {
      builder.tls(GrpcTestCertificates.server());
    }
    Server server = builder.build().start();
    CLOSE.add(() -> {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    });
    return server;
  }

  @AfterAll
  static void stop() throws Exception {
    for (ManagedChannel channel : new ManagedChannel[] {toStock, toStockTls, toTern, toTernTls}) {
      if (channel != null) {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    }
    Collections.reverse(CLOSE);
    for (AutoCloseable c : CLOSE) {
      c.close();
    }
    SCHEDULER.shutdownNow();
  }

  static List<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (String peer : new String[] {"stock", "stock-tls", "tern-tcp", "tern-tcp-tls"}) {
      for (InteropCase c : InteropCase.withoutProbes()) {
        cases.add(Arguments.of(peer, c));
      }
    }
    return cases;
  }

  private static ManagedChannel channel(String peer) {
    switch (peer) {
      case "stock": return toStock;
      case "stock-tls": return toStockTls;
      case "tern-tcp": return toTern;
      default: return toTernTls;
    }
  }

  @ParameterizedTest(name = "okhttp to {0}: {1}")
  @MethodSource("cases")
  void passes(String peer, InteropCase testCase) throws Exception {
    ManagedChannel channel = channel(peer);
    new InteropClientCases(channel).run(testCase);
    assertThat(TernChannels.connectionInfo(channel).transport()).isEqualTo("okhttp");
  }

  /**
   * With grpc-netty's transport ({@code tcp}) and grpc-okhttp's both on the class path, a channel
   * that names no transport keeps {@code tcp} as its TCP transport; {@code okhttp} takes that place
   * only where {@code tcp} is absent (rpc-transport-okhttp's DefaultPreferenceTest).
   */
  @Test
  void withBothOnTheClassPathTheDefaultTcpTransportIsGrpcNetty() {
    List<String> names = new ArrayList<>();
    for (TransportProvider p : TransportSelector.fromServiceLoader(Collections.emptyList())
        .candidates("127.0.0.1:1", TransportMemory.builder().build())) {
      names.add(p.name());
    }
    assertThat(names).contains("tcp").doesNotContain("okhttp");
  }
}
