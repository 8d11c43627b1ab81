package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;


import dev.tern.conformance.Echo;
import dev.tern.conformance.ResetDrainCases;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.TransportEvents;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2PingFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2PingFrame;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/2 rapid reset (CVE-2023-44487) against a Tern server on {@code tcp}: a client that opens
 * streams and resets them at once is drained and sent GOAWAY {@code ENHANCE_YOUR_CALM} and cut off past the
 * server's RST_STREAM limit, on by default; other clients' calls go on. The attacker is a plain
 * Netty HTTP/2 client on its own socket, sending HEADERS then RST_STREAM for stream after stream.
 */
@Timeout(60)
class RapidResetTest {
  /** ENHANCE_YOUR_CALM (RFC 9113 §7): what the server answers a peer that behaves abusively. */
  private static final long ENHANCE_YOUR_CALM = Http2Error.ENHANCE_YOUR_CALM.code();

  @Test
  void resetsPastTheLimitGetGoAwayEnhanceYourCalmAndALegitimateChannelCarriesOn() throws Exception {
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).maxRstFramesPerWindow(20, 60).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
        .usePlaintext().build();
    try (Attacker attacker = Attacker.connect(server.getPort())) {
      assertThat(Echo.call(channel, "before")).isEqualTo("before");
      attacker.resetsUpToTheLimitThenOneMore(20);
      assertThat(attacker.goAway.get(10, TimeUnit.SECONDS)).as("GOAWAY error code").isEqualTo(ENHANCE_YOUR_CALM);
      assertThat(attacker.goAwayDebug).as("GOAWAY debug data").isEqualTo("too_many_rststreams");
      assertThat(attacker.closed.get(10, TimeUnit.SECONDS)).as("the server closed the connection").isTrue();
      // RFC 9113 §6.8's graceful pair (last stream 2^31-1, then the last created), then the close.
      assertThat(attacker.goAways).containsExactly(0L, 0L, ENHANCE_YOUR_CALM);
      assertThat(Echo.call(channel, "after")).as("another connection's call").isEqualTo("after");
    } finally {
      close(channel, server);
    }
  }

  /**
   * A legitimate client whose calls are cancelled together past the limit (a deadline or a cancel
   * storm) loses none of its other calls (ResetDrainCases); the server closes the drained
   * connection once its last call has ended. grpc-netty's own limit closed the connection at once,
   * failing the call in flight.
   */
  @Test
  void aClientPastTheLimitLosesNoOtherCallTheConnectionIsDrainedThenClosed() throws Exception {
    ResetDrainCases cases = new ResetDrainCases();
    TernMetrics metrics = TernMetrics.create();
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(cases.service()).maxRstFramesPerWindow(20, 60).metrics(metrics, "server").build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
        .usePlaintext().build();
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "server", TcpTransportProvider.NAME);
    try {
      cases.callsInFlightSurviveTheLimit(channel, () -> s.refusals(TransportEvents.RAPID_RESET));
      await("the drained connection closed once its calls had ended").atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(10)).untilAsserted(() -> assertThat(s.connections()).as("%s", s).isEqualTo(1));
    } finally {
      close(channel, server);
    }
  }

  @Test
  void theLimitIsOnByDefaultAt200Per10Seconds() throws Exception {
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).build().start();
    try (Attacker attacker = Attacker.connect(server.getPort())) {
      attacker.resetsUpToTheLimitThenOneMore(200);
      assertThat(attacker.goAway.get(10, TimeUnit.SECONDS)).as("GOAWAY after the 201st reset")
          .isEqualTo(ENHANCE_YOUR_CALM);
      assertThat(attacker.closed.get(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void integerMaxValueTurnsTheLimitOff() throws Exception {
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service()).maxRstFramesPerWindow(Integer.MAX_VALUE, 10).build().start();
    try (Attacker attacker = Attacker.connect(server.getPort())) {
      attacker.headersThenReset(500);
      assertThat(attacker.ping(9).get(10, TimeUnit.SECONDS)).as("PING ACK after 500 resets").isEqualTo(9L);
      assertThat(attacker.goAway).isNotDone();
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static void close(ManagedChannel channel, Server server) throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** A raw HTTP/2 client (prior knowledge, cleartext) that records GOAWAY, PING ACKs and the close. */
  static final class Attacker extends Http2ChannelDuplexHandler implements AutoCloseable {
    /** The error code of the server's first GOAWAY with an error (the one before the close). */
    final CompletableFuture<Long> goAway = new CompletableFuture<>();
    /** The error codes of every GOAWAY the server sent, in order. */
    final List<Long> goAways = new java.util.concurrent.CopyOnWriteArrayList<>();
    final CompletableFuture<Boolean> closed = new CompletableFuture<>();
    volatile String goAwayDebug;
    private volatile CompletableFuture<Long> pingAck = new CompletableFuture<>();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final int port;
    private Channel channel;

    private Attacker(int port) {
      this.port = port;
    }

    static Attacker connect(int port) throws InterruptedException {
      Attacker a = new Attacker(port);
      // The codec's own guard against sending many resets is for servers; turned off to attack.
      Http2FrameCodec codec = Http2FrameCodecBuilder.forClient().encoderEnforceMaxRstFramesPerWindow(0, 0).build();
      a.channel = new Bootstrap().group(a.group).channel(NioSocketChannel.class)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              ch.pipeline().addLast(codec, a);
            }
          })
          .connect(new InetSocketAddress("127.0.0.1", port)).sync().channel();
      return a;
    }

    /** Opens a stream with the HEADERS of a gRPC request to {@code path}, and sends nothing more on it. */
    void openStream(String path) throws InterruptedException {
      channel.eventLoop().submit(() -> {
        channel.writeAndFlush(new DefaultHttp2HeadersFrame(requestHeaders(path), false).stream(newStream()));
      }).sync();
    }

    private Http2Headers requestHeaders(String path) {
      return new DefaultHttp2Headers().method("POST").scheme("http")
          .path(path).authority("127.0.0.1:" + port)
          .add("content-type", "application/grpc").add("te", "trailers");
    }

    /** Opens {@code n} streams with a gRPC request's HEADERS, each reset (CANCEL) right after. */
    void headersThenReset(int n) throws InterruptedException {
      channel.eventLoop().submit(() -> {
        for (int i = 0; i < n; i++) {
          Http2Headers h = requestHeaders("/conformance.Strings/Echo");
          Http2FrameStream stream = newStream();
          channel.write(new DefaultHttp2HeadersFrame(h, false).stream(stream));
          channel.write(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream));
          if (i % 20 == 19) {
            channel.flush();
          }
        }
        channel.flush();
      }).sync();
    }

    /**
     * Sends {@code limit} resets, checks with a PING that the server took them all and kept the
     * connection, then sends one more. (One at the end, read whole by the server before it closes:
     * a close with unread bytes would be a TCP reset, which can destroy the GOAWAY on its way.)
     */
    void resetsUpToTheLimitThenOneMore(int limit) throws Exception {
      headersThenReset(limit);
      assertThat(ping(limit).get(10, TimeUnit.SECONDS)).as("PING ACK after %d resets", limit).isEqualTo((long) limit);
      assertThat(goAway).as("GOAWAY after %d resets", limit).isNotDone();
      headersThenReset(1);
    }

    CompletableFuture<Long> ping(long content) {
      CompletableFuture<Long> ack = new CompletableFuture<>();
      pingAck = ack;
      channel.writeAndFlush(new DefaultHttp2PingFrame(content));
      return ack;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http2GoAwayFrame) {
          Http2GoAwayFrame f = (Http2GoAwayFrame) msg;
          goAways.add(f.errorCode());
          if (f.errorCode() != 0 || goAway.isDone()) {
            goAwayDebug = f.content().toString(StandardCharsets.UTF_8);
            goAway.complete(f.errorCode());
          }
        } else if (msg instanceof Http2PingFrame && ((Http2PingFrame) msg).ack()) {
          pingAck.complete(((Http2PingFrame) msg).content());
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closed.complete(true);
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // The server's close can race a write: nothing to do but record the close.
    }

    /** Closes the connection (a FIN, no GOAWAY, no RST_STREAM) and waits until it is closed. */
    void closeConnection() {
      channel.close().syncUninterruptibly();
    }

    @Override
    public void close() {
      channel.close();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}
