package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The QUIC server's handshake limits against clients that never finish their handshakes: real
 * ClientHellos (Netty's QUIC client's first flights, each a new connection) sent from 40 loopback
 * addresses, nothing ever answered. Half-open connections stay bounded by the limits (Retry above
 * {@code quic.retryAboveHandshakes}, so the flood costs the server no state beyond it), a
 * legitimate client (which follows the Retry) completes its call in the middle of the flood, and a
 * client refused for a limit hears CONNECTION_REFUSED at once.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HandshakeFloodTest {
  private static final MethodDescriptor<String, String> ECHO = EndToEndZeroRttTest.method("test.Flood/Echo", false);
  private static final int HELLOS = 10_000;
  private static final int ADDRESSES = 40;

  private static ServerServiceDefinition echo() {
    return ServerServiceDefinition.builder("test.Flood")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .build();
  }

  private static ManagedChannel channel(InetSocketAddress address) {
    return TernChannelBuilder.forAddress(address).addTransportProvider(new QuicTransportProvider())
        .transports("quic").overrideAuthority("localhost:" + address.getPort())
        .tls(TestCertificates.client()).build();
  }

  @Test
  void tenThousandAbandonedHandshakesStayWithinTheLimitsAndALegitimateCallSucceeds() throws Exception {
    KeepingProvider provider = new KeepingProvider();
    Server server = TernServerBuilder.create().addTransportProvider(provider)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server()).addService(echo())
        // Half-open connections closed after 5 s, not the default 20 s: their release is shown too.
        .handshakeTimeout(5, TimeUnit.SECONDS)
        .build().start();
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    QuicServerTransport transport = provider.server;
    List<byte[]> hellos;
    try (ClientHellos maker = new ClientHellos()) {
      hellos = maker.make(HELLOS, address);
    }
    List<DatagramChannel> attackers = new ArrayList<>();
    ManagedChannel legitimate = channel(address);
    try {
      for (int i = 0; i < ADDRESSES; i++) {
        attackers.add(DatagramChannel.open().bind(new InetSocketAddress("127.0.0." + (2 + i), 0)));
      }
      System.gc();
      long rssBefore = rssBytes();
      long heapBefore = heapUsed();
      long peakRss = rssBefore;
      long startNs = System.nanoTime();
      CompletableFuture<Status> legitimateCall = null;
      java.util.concurrent.atomic.AtomicLong legitimateMs = new java.util.concurrent.atomic.AtomicLong(-1);
      for (int i = 0; i < HELLOS; i++) {
        attackers.get(i % ADDRESSES).send(ByteBuffer.wrap(hellos.get(i)), address);
        if ((i + 1) % 50 == 0) {
          // Paced by the server, so that the socket's receive buffer never overflows and every
          // ClientHello reaches it.
          awaitInitialsSeen(transport, i + 1);
          peakRss = Math.max(peakRss, rssBytes());
        }
        if (i == HELLOS / 2) {
          legitimateCall = CompletableFuture.supplyAsync(() -> {
            long callStartNs = System.nanoTime();
            try {
              String answer = ClientCalls.blockingUnaryCall(legitimate, ECHO,
                  CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), "legitimate");
              legitimateMs.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - callStartNs));
              return answer.equals("legitimate") ? Status.OK : Status.INTERNAL.withDescription(answer);
            } catch (StatusRuntimeException e) {
              return e.getStatus();
            }
          });
        }
      }
      long floodMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
      Status legitimateStatus = legitimateCall.get(60, TimeUnit.SECONDS);
      QuicServerTransport.LimitCounts during = transport.limitCounts();
      System.gc();
      long rssAfter = rssBytes();
      long heapAfter = heapUsed();
      // The call layer's handshake timeout closes what is still half-open.
      QuicServerTransport.LimitCounts released = awaitNoHandshakes(transport);
      System.out.printf("handshake flood: %d ClientHellos from %d addresses in %d ms; connections made %d, peak"
              + " half-open %d, peak connections %d, Retries %d, refused %d; RSS %.1f MiB before, %.1f MiB at most"
              + " during, %.1f MiB after (heap %+.1f MiB); legitimate call %s in %d ms (a new connection, through a"
              + " Retry); half-open after the handshake timeout: %d%n",
          HELLOS, ADDRESSES, floodMs, provider.created.get(), provider.peakHalfOpen.get(), provider.peakOpen.get(),
          during.retries(), during.refused(), rssBefore / 1048576.0, peakRss / 1048576.0, rssAfter / 1048576.0,
          (heapAfter - heapBefore) / 1048576.0, legitimateStatus.getCode(), legitimateMs.get(), released.handshakes());

      assertThat(legitimateStatus.getCode()).as("the legitimate call during the flood: %s", legitimateStatus)
          .isEqualTo(Status.Code.OK);
      assertThat(during.initials()).as("ClientHellos the server saw").isGreaterThanOrEqualTo(HELLOS);
      int retryAbove = QuicTransportOptions.RETRY_ABOVE_HANDSHAKES.defaultValue();
      // The flood's unproved handshakes stop at the Retry threshold; the legitimate client's proved one
      // (and its first, token-less attempt) may come on top.
      assertThat(during.peakHandshakes()).as("most half-open connections at once, as the server counts them")
          .isEqualTo(provider.peakHalfOpen.get());
      assertThat(provider.peakHalfOpen.get()).as("most half-open connections at once")
          .isLessThanOrEqualTo(retryAbove + 2)
          .isLessThanOrEqualTo(QuicTransportOptions.MAX_HANDSHAKES.defaultValue());
      assertThat(during.retries()).as("ClientHellos answered with a stateless Retry")
          .isGreaterThanOrEqualTo(HELLOS / 2);
      assertThat(released.handshakes()).as("half-open connections once the handshake timeout has passed").isZero();
      assertThat(provider.halfOpen.get()).as("half-open connections reported to the call layer, at the end").isZero();
    } finally {
      for (DatagramChannel a : attackers) {
        a.close();
      }
      legitimate.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aClientOverTheConnectionLimitIsRefusedAtOnceAndTheConnectionAlreadyOpenIsUnharmed() throws Exception {
    KeepingProvider provider = new KeepingProvider();
    Server server = TernServerBuilder.create().addTransportProvider(provider)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server()).addService(echo())
        .transportOption(TransportOptions.MAX_CONNECTIONS, 1)
        .build().start();
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    ManagedChannel first = channel(address);
    ManagedChannel second = channel(address);
    try {
      assertThat(ClientCalls.blockingUnaryCall(first, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
          "one")).isEqualTo("one");
      long startNs = System.nanoTime();
      StatusRuntimeException refused = org.assertj.core.api.Assertions.catchThrowableOfType(
          () -> ClientCalls.blockingUnaryCall(second, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
              "two"), StatusRuntimeException.class);
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
      assertThat(refused).as("the second connection's call").isNotNull();
      System.out.printf("quic connection limit: the refused client's call failed in %d ms with %s%n", tookMs,
          refused.getStatus());
      assertThat(refused.getStatus().getCode()).as("%s", refused.getStatus()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(refused.getStatus().getDescription()).as("says why")
          .contains("closed by the server with CONNECTION_REFUSED (0x2): server connection or handshake limit reached");
      assertThat(tookMs).as("refused at once, not after the client's handshake timeout").isLessThan(10_000);
      QuicServerTransport.LimitCounts counts = provider.server.limitCounts();
      assertThat(counts.refused()).as("connections refused").isPositive();
      assertThat(counts.peakConnections()).as("most connections at once").isEqualTo(1);
      assertThat(provider.peakOpen.get()).as("most connections the call layer heard of at once").isEqualTo(1);
      assertThat(ClientCalls.blockingUnaryCall(first, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
          "again")).as("the first connection, after the refusal").isEqualTo("again");
    } finally {
      first.shutdownNow();
      second.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void withRetryAlwaysEveryConnectionProvesItsAddressFirst() throws Exception {
    KeepingProvider provider = new KeepingProvider();
    Server server = TernServerBuilder.create().addTransportProvider(provider)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server()).addService(echo())
        .transportOption(QuicTransportOptions.RETRY_ABOVE_HANDSHAKES, 0)
        .build().start();
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    ManagedChannel channel = channel(address);
    try {
      assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
          "proved")).isEqualTo("proved");
      QuicServerTransport.LimitCounts counts = provider.server.limitCounts();
      assertThat(counts.retries()).as("Retries sent").isEqualTo(1);
      assertThat(counts.peakConnections()).isEqualTo(1);
      assertThat(counts.badTokens()).isZero();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static void awaitInitialsSeen(QuicServerTransport transport, long count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (transport.limitCounts().initials() < count) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the server saw " + transport.limitCounts().initials() + " of " + count
            + " ClientHellos within 20 s");
      }
      Thread.onSpinWait();
      Thread.sleep(1);
    }
  }

  private static QuicServerTransport.LimitCounts awaitNoHandshakes(QuicServerTransport transport) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    QuicServerTransport.LimitCounts c = transport.limitCounts();
    while (c.handshakes() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
      c = transport.limitCounts();
    }
    return c;
  }

  private static long rssBytes() throws java.io.IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    return -1;
  }

  private static long heapUsed() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }
}
