package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tern.conformance.ResetDrainCases;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/3 "rapid reset" (the QUIC form of CVE-2023-44487): a client that opens request streams
 * and resets each at once, with RESET_STREAM and STOP_SENDING, right after its HEADERS. The server
 * closes its connection with H3_EXCESSIVE_LOAD once it passes the limit of streams reset before
 * their answer (200 per 10 s by default), while a legitimate client's calls on another connection
 * go on; their latency is reported.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RapidResetTest {
  private static final MethodDescriptor<String, String> ECHO = EndToEndZeroRttTest.method("test.Reset/Echo", false);
  private static final int BURST = 5_000;

  @Test
  void aClientResettingStreamsPastTheLimitIsClosedWithExcessiveLoadAndOthersAreUnharmed() throws Exception {
    KeepingProvider provider = new KeepingProvider();
    Server server = TernServerBuilder.create().addTransportProvider(provider)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server())
        .addService(ServerServiceDefinition.builder("test.Reset")
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
              response.onNext(request);
              response.onCompleted();
            }))
            .build())
        .build().start();
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    ManagedChannel legitimate = TernChannelBuilder.forAddress(address).addTransportProvider(new QuicTransportProvider())
        .transports("quic").overrideAuthority("localhost:" + address.getPort())
        .tls(TestCertificates.client()).build();
    EventLoopGroup group = EventLoops.newGroup(1, "rapid-reset");
    AtomicBoolean attacking = new AtomicBoolean(true);
    try {
      assertThat(ClientCalls.blockingUnaryCall(legitimate, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20,
          TimeUnit.SECONDS), "warm")).isEqualTo("warm");
      // A legitimate client's calls, one after another, for as long as the attack goes on.
      List<Long> latenciesNs = Collections.synchronizedList(new ArrayList<>());
      CompletableFuture<Void> calls = CompletableFuture.runAsync(() -> {
        do {
          long start = System.nanoTime();
          String answer = ClientCalls.blockingUnaryCall(legitimate, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20,
              TimeUnit.SECONDS), "legitimate");
          latenciesNs.add(System.nanoTime() - start);
          if (!answer.equals("legitimate")) {
            throw new AssertionError(answer);
          }
        } while (attacking.get());
      });

      CompletableFuture<QuicConnectionCloseEvent> closedBy = new CompletableFuture<>();
      QuicChannel attacker = connect(group, address, closedBy);
      int reset = 0;
      long startNs = System.nanoTime();
      for (int i = 0; i < BURST && attacker.isActive(); i++) {
        io.netty.util.concurrent.Future<QuicStreamChannel> opened =
            Http3.newRequestStream(attacker, new ChannelInboundHandlerAdapter()).awaitUninterruptibly();
        if (!opened.isSuccess()) {
          break; // the connection is closing, or no stream credit is left
        }
        QuicStreamChannel stream = opened.getNow();
        DefaultHttp3Headers headers = new DefaultHttp3Headers();
        headers.method("POST").scheme("https").authority("localhost:" + address.getPort()).path("/test.Reset/Echo")
            .add("content-type", "application/grpc").add("te", "trailers");
        stream.writeAndFlush(new DefaultHttp3HeadersFrame(headers));
        // RESET_STREAM and STOP_SENDING at once (RFC 9114 §4.1.1: H3_REQUEST_CANCELLED).
        stream.shutdown((int) Http3ErrorCode.H3_REQUEST_CANCELLED.code());
        reset++;
      }
      long burstMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
      boolean closed = attacker.closeFuture().await(20, TimeUnit.SECONDS);
      attacking.set(false);
      calls.get(60, TimeUnit.SECONDS);
      QuicConnectionCloseEvent why = closedBy.getNow(null);
      QuicServerTransport.LimitCounts counts = provider.server.limitCounts();
      long[] sorted = latenciesNs.stream().mapToLong(Long::longValue).sorted().toArray();
      System.out.printf("quic rapid reset: %d streams opened and reset in %d ms; attacker closed: %s (%s);"
              + " connections closed for resets %d; legitimate calls %d, p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
          reset, burstMs, closed, why, counts.closedForResets(), sorted.length, percentile(sorted, 0.50),
          percentile(sorted, 0.99), sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6);

      assertThat(closed).as("the attacking connection was closed by the server").isTrue();
      assertThat(why).as("the server's close").isNotNull();
      assertThat(why.isApplicationClose()).as("an HTTP/3 (application) close").isTrue();
      assertThat((long) why.error()).as("the close's error code").isEqualTo(Http3ErrorCode.H3_EXCESSIVE_LOAD.code());
      assertThat(reset).as("streams reset before the close").isGreaterThan(200).isLessThan(BURST);
      assertThat(counts.closedForResets()).isEqualTo(1);
      assertThat(sorted).as("legitimate calls during the attack").isNotEmpty();
    } finally {
      attacking.set(false);
      legitimate.shutdownNow();
      server.shutdownNow();
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * A legitimate client whose calls are cancelled together past the limit (a deadline or a cancel
   * storm) loses none of its other calls (ResetDrainCases): the server drains the connection
   * (GOAWAY) and closes it with H3_EXCESSIVE_LOAD once its calls have ended. Closing at once, as
   * before, failed the call in flight.
   */
  @Test
  void aClientPastTheLimitLosesNoOtherCallTheConnectionIsDrainedThenClosed() throws Exception {
    ResetDrainCases cases = new ResetDrainCases();
    KeepingProvider provider = new KeepingProvider();
    Server server = drainServer(provider, cases, 20);
    ManagedChannel channel = channel(server);
    try {
      cases.callsInFlightSurviveTheLimit(channel, () -> closedForResets(provider));
    } finally {
      close(channel, server);
    }
  }

  /**
   * A storm as a client's own code makes one: hundreds of calls the server holds, cancelled at
   * once, past the default limit. The streams that stay on the drained connection (a chat, a
   * download half done) still carry data both ways and end normally.
   */
  @Test
  void afterAStormPastTheLimitTheDrainedConnectionsStreamsKeepFlowing() throws Exception {
    ResetDrainCases cases = new ResetDrainCases();
    KeepingProvider provider = new KeepingProvider();
    Server server = drainServer(provider, cases, 0);
    ManagedChannel channel = channel(server);
    try {
      ResetDrainCases.Chat chat = new ResetDrainCases.Chat(channel, 60);
      chat.out.onNext("before");
      assertThat(chat.echoes.poll(10, TimeUnit.SECONDS)).isEqualTo("before");
      java.util.concurrent.atomic.AtomicLong downloaded = new java.util.concurrent.atomic.AtomicLong();
      CompletableFuture<io.grpc.Status> downloadEnd = new CompletableFuture<>();
      ClientCalls.asyncServerStreamingCall(channel.newCall(ResetDrainCases.DOWNLOAD,
          CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)), "go", new io.grpc.stub.StreamObserver<String>() {
            @Override public void onNext(String value) {
              downloaded.addAndGet(value.length());
            }

            @Override public void onError(Throwable t) {
              downloadEnd.complete(io.grpc.Status.fromThrowable(t));
            }

            @Override public void onCompleted() {
              downloadEnd.complete(io.grpc.Status.OK);
            }
          });
      long half = (long) ResetDrainCases.DOWNLOAD_MESSAGES / 2 * ResetDrainCases.DOWNLOAD_MESSAGE_CHARS;
      await("the download's first half").atMost(Duration.ofSeconds(20)).until(() -> downloaded.get() >= half);
      List<com.google.common.util.concurrent.ListenableFuture<String>> storm = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        storm.add(ClientCalls.futureUnaryCall(channel.newCall(ResetDrainCases.HANG, CallOptions.DEFAULT), "x"));
      }
      assertThat(cases.hanging.tryAcquire(400, 20, TimeUnit.SECONDS)).as("the storm's calls reached the server").isTrue();
      for (com.google.common.util.concurrent.ListenableFuture<String> f : storm) {
        f.cancel(true);
      }
      ResetDrainCases.awaitLimitPassed(() -> closedForResets(provider));
      cases.downloadGate.countDown();
      for (int i = 0; i < 20; i++) {
        chat.out.onNext("after " + i);
        assertThat(chat.echoes.poll(10, TimeUnit.SECONDS)).as("echo %d on the drained connection", i)
            .isEqualTo("after " + i);
      }
      assertThat(downloadEnd.get(30, TimeUnit.SECONDS)).as("the download's end, " + downloaded + " chars")
          .isEqualTo(io.grpc.Status.OK);
      assertThat(downloaded.get()).isEqualTo((long) ResetDrainCases.DOWNLOAD_MESSAGES * ResetDrainCases.DOWNLOAD_MESSAGE_CHARS);
      chat.out.onCompleted();
      assertThat(chat.end.get(15, TimeUnit.SECONDS)).as("the chat's end").isEqualTo(io.grpc.Status.OK);
    } finally {
      close(channel, server);
    }
  }

  /** A quic server with {@code cases}' service; {@code maxResets} 0 keeps the default limit. */
  private static Server drainServer(KeepingProvider provider, ResetDrainCases cases, int maxResets) throws Exception {
    TernServerBuilder b = TernServerBuilder.create().addTransportProvider(provider)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server()).addService(cases.service());
    if (maxResets > 0) {
      b.maxRstFramesPerWindow(maxResets, 60);
    }
    return b.build().start();
  }

  private static ManagedChannel channel(Server server) {
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    return TernChannelBuilder.forAddress(address).addTransportProvider(new QuicTransportProvider())
        .transports("quic").overrideAuthority("localhost:" + address.getPort())
        .tls(TestCertificates.client()).build();
  }

  /** Connections the server closed or drained for resets. */
  private static long closedForResets(KeepingProvider provider) {
    try {
      return provider.server.limitCounts().closedForResets();
    } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
      throw new AssertionError("the server's counts", e);
    }
  }

  private static void close(ManagedChannel channel, Server server) throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
  }

  private static QuicChannel connect(EventLoopGroup group, InetSocketAddress server,
      CompletableFuture<QuicConnectionCloseEvent> closedBy) throws Exception {
    Channel udp = new Bootstrap().group(group).channel(NioDatagramChannel.class)
        .handler(new QuicClientCodecBuilder()
            .sslContext(QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                .applicationProtocols(Http3.supportedApplicationProtocols()).build())
            .maxIdleTimeout(30, TimeUnit.SECONDS)
            .initialMaxData(16 << 20)
            .initialMaxStreamDataBidirectionalLocal(1 << 20)
            .initialMaxStreamDataBidirectionalRemote(1 << 20)
            .initialMaxStreamsBidirectional(100)
            .initialMaxStreamsUnidirectional(100)
            .initialMaxStreamDataUnidirectional(1 << 20)
            .build())
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    QuicChannel quic = QuicChannel.newBootstrap(udp)
        .handler(new io.netty.channel.ChannelInitializer<QuicChannel>() {
          @Override
          protected void initChannel(QuicChannel ch) {
            ch.pipeline().addLast(new Http3ClientConnectionHandler());
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof QuicConnectionCloseEvent) {
                  closedBy.complete((QuicConnectionCloseEvent) evt);
                }
                ctx.fireUserEventTriggered(evt);
              }
            });
          }
        })
        .remoteAddress(server).connect().get(20, TimeUnit.SECONDS);
    quic.closeFuture().addListener(f -> udp.close());
    return quic;
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }
}
