package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

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
   * storm) loses none of its other calls: the server drains the connection (GOAWAY) and closes it
   * with H3_EXCESSIVE_LOAD only once the call in flight has ended; new calls go to a new
   * connection. Closing at once, as before, failed the call in flight.
   */
  @Test
  void aClientPastTheLimitLosesNoOtherCallTheConnectionIsDrainedThenClosed() throws Exception {
    java.util.concurrent.BlockingQueue<io.grpc.stub.StreamObserver<String>> held =
        new java.util.concurrent.LinkedBlockingQueue<>();
    java.util.concurrent.Semaphore hanging = new java.util.concurrent.Semaphore(0);
    MethodDescriptor<String, String> hold = EndToEndZeroRttTest.method("test.Reset/Hold", false);
    MethodDescriptor<String, String> hang = EndToEndZeroRttTest.method("test.Reset/Hang", false);
    MethodDescriptor<String, String> chat =
        dev.tern.conformance.Utf8.method("test.Reset/Chat", MethodDescriptor.MethodType.BIDI_STREAMING);
    KeepingProvider provider = new KeepingProvider();
    Server server = TernServerBuilder.create().addTransportProvider(provider)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server()).maxRstFramesPerWindow(20, 60)
        .addService(ServerServiceDefinition.builder("test.Reset")
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
              response.onNext(request);
              response.onCompleted();
            }))
            .addMethod(hold, ServerCalls.asyncUnaryCall((request, response) -> held.add(response)))
            .addMethod(hang, ServerCalls.asyncUnaryCall((request, response) -> hanging.release()))
            .addMethod(chat, echoChat())
            .build())
        .build().start();
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(new QuicTransportProvider())
        .transports("quic").overrideAuthority("localhost:" + address.getPort())
        .tls(TestCertificates.client()).build();
    try {
      com.google.common.util.concurrent.ListenableFuture<String> inFlight = ClientCalls.futureUnaryCall(
          channel.newCall(hold, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)), "held");
      io.grpc.stub.StreamObserver<String> answer = held.poll(10, TimeUnit.SECONDS);
      assertThat(answer).as("the held call reached the server").isNotNull();
      Chat c = new Chat(channel, chat, 30);
      c.out.onNext("before");
      assertThat(c.echoes.poll(10, TimeUnit.SECONDS)).isEqualTo("before");
      for (int i = 0; i < 25; i++) {
        com.google.common.util.concurrent.ListenableFuture<String> f =
            ClientCalls.futureUnaryCall(channel.newCall(hang, CallOptions.DEFAULT), "x");
        assertThat(hanging.tryAcquire(10, TimeUnit.SECONDS)).as("call %d reached the server", i).isTrue();
        f.cancel(true); // RESET_STREAM and STOP_SENDING, H3_REQUEST_CANCELLED
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (provider.server.limitCounts().closedForResets() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(provider.server.limitCounts().closedForResets()).as("the limit was passed").isEqualTo(1);
      if (inFlight.isDone()) {
        try {
          inFlight.get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError("the call in flight failed with the limit: " + io.grpc.Status.fromThrowable(e), e);
        }
      }
      assertThat(inFlight.isDone()).as("the call in flight survives the limit").isFalse();
      assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20,
          TimeUnit.SECONDS), "beside")).as("a new call, on a new connection").isEqualTo("beside");
      answer.onNext("answered");
      answer.onCompleted();
      assertThat(inFlight.get(10, TimeUnit.SECONDS)).isEqualTo("answered");
      // A stream of the drained connection still carries messages both ways, and ends normally.
      Thread.sleep(1_500); // past quiche's and Tern's timers of a quiet connection: a precondition
      c.out.onNext("after");
      assertThat(c.echoes.poll(10, TimeUnit.SECONDS)).as("an echo on the drained connection").isEqualTo("after");
      c.out.onCompleted();
      assertThat(c.end.get(10, TimeUnit.SECONDS)).as("the chat's end").isEqualTo(io.grpc.Status.OK);
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * A storm as a client's own code makes one: hundreds of calls the server holds, cancelled at
   * once, past the limit. The streams that stay on the drained connection (a chat, a download)
   * still carry data both ways and end normally.
   */
  @Test
  void afterAStormPastTheLimitTheDrainedConnectionsStreamsKeepFlowing() throws Exception {
    java.util.concurrent.Semaphore hanging = new java.util.concurrent.Semaphore(0);
    MethodDescriptor<String, String> hang = EndToEndZeroRttTest.method("test.Reset/Hang", false);
    MethodDescriptor<String, String> chat =
        dev.tern.conformance.Utf8.method("test.Reset/Chat", MethodDescriptor.MethodType.BIDI_STREAMING);
    MethodDescriptor<String, String> download =
        dev.tern.conformance.Utf8.method("test.Reset/Download", MethodDescriptor.MethodType.SERVER_STREAMING);
    String block = "x".repeat(32 * 1024);
    KeepingProvider provider = new KeepingProvider();
    Server server = TernServerBuilder.create().addTransportProvider(provider)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server())
        .addService(ServerServiceDefinition.builder("test.Reset")
            .addMethod(hang, ServerCalls.asyncUnaryCall((request, response) -> hanging.release()))
            .addMethod(chat, echoChat())
            .addMethod(download, ServerCalls.asyncServerStreamingCall((request, response) -> {
              new Thread(() -> {
                try {
                  for (int i = 0; i < 256; i++) {
                    response.onNext(block);
                    Thread.sleep(10);
                  }
                  response.onCompleted();
                } catch (InterruptedException | RuntimeException e) {
                  response.onError(e);
                }
              }).start();
            }))
            .build())
        .build().start();
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(new QuicTransportProvider())
        .transports("quic").overrideAuthority("localhost:" + address.getPort())
        .tls(TestCertificates.client()).build();
    try {
      Chat c = new Chat(channel, chat, 60);
      c.out.onNext("before");
      assertThat(c.echoes.poll(10, TimeUnit.SECONDS)).isEqualTo("before");
      java.util.concurrent.atomic.AtomicLong downloaded = new java.util.concurrent.atomic.AtomicLong();
      CompletableFuture<io.grpc.Status> downloadEnd = new CompletableFuture<>();
      ClientCalls.asyncServerStreamingCall(channel.newCall(download,
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
      List<com.google.common.util.concurrent.ListenableFuture<String>> storm = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        storm.add(ClientCalls.futureUnaryCall(channel.newCall(hang, CallOptions.DEFAULT), "x"));
      }
      assertThat(hanging.tryAcquire(400, 20, TimeUnit.SECONDS)).as("the storm's calls reached the server").isTrue();
      for (com.google.common.util.concurrent.ListenableFuture<String> f : storm) {
        f.cancel(true);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (provider.server.limitCounts().closedForResets() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(provider.server.limitCounts().closedForResets()).as("the limit was passed").isEqualTo(1);
      for (int i = 0; i < 20; i++) {
        Thread.sleep(250);
        c.out.onNext("after " + i);
        assertThat(c.echoes.poll(10, TimeUnit.SECONDS)).as("echo %d on the drained connection", i).isEqualTo("after " + i);
      }
      assertThat(downloadEnd.get(30, TimeUnit.SECONDS)).as("the download's end, " + downloaded + " chars")
          .isEqualTo(io.grpc.Status.OK);
      assertThat(downloaded.get()).isEqualTo(256L * block.length());
      c.out.onCompleted();
      assertThat(c.end.get(15, TimeUnit.SECONDS)).as("the chat's end").isEqualTo(io.grpc.Status.OK);
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** A bidirectional method that echoes each message and ends when the client does. */
  private static io.grpc.ServerCallHandler<String, String> echoChat() {
    return ServerCalls.asyncBidiStreamingCall(response -> new io.grpc.stub.StreamObserver<String>() {
      @Override public void onNext(String value) {
        response.onNext(value);
      }

      @Override public void onError(Throwable t) {}

      @Override public void onCompleted() {
        response.onCompleted();
      }
    });
  }

  /** A client's side of an {@link #echoChat()} call: what it sends, the echoes, the end. */
  private static final class Chat {
    final java.util.concurrent.BlockingQueue<String> echoes = new java.util.concurrent.LinkedBlockingQueue<>();
    final CompletableFuture<io.grpc.Status> end = new CompletableFuture<>();
    final io.grpc.stub.StreamObserver<String> out;

    Chat(ManagedChannel channel, MethodDescriptor<String, String> method, int deadlineSeconds) {
      out = ClientCalls.asyncBidiStreamingCall(
          channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds, TimeUnit.SECONDS)),
          new io.grpc.stub.StreamObserver<String>() {
            @Override public void onNext(String value) {
              echoes.add(value);
            }

            @Override public void onError(Throwable t) {
              end.complete(io.grpc.Status.fromThrowable(t));
            }

            @Override public void onCompleted() {
              end.complete(io.grpc.Status.OK);
            }
          });
    }
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
