package dev.tern.transport.quic;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Real QUIC client first flights: the datagram carrying an Initial packet with a TLS 1.3
 * ClientHello (ALPN h3), as Netty's QUIC client (quiche) builds it for a new connection, each with
 * its own random connection IDs. Captured on their way out and never sent, so that a test can send
 * them from a socket of its own and never answer what comes back: a client that never finishes its
 * handshakes.
 */
final class ClientHellos implements AutoCloseable {
  private final EventLoopGroup group = EventLoops.newGroup(1, "client-hellos");
  private final BlockingQueue<byte[]> captured = new LinkedBlockingQueue<>();
  private final Channel udp;

  ClientHellos() throws InterruptedException {
    io.netty.channel.ChannelHandler codec = new QuicClientCodecBuilder()
        .sslContext(QuicSslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
            .applicationProtocols(Http3.supportedApplicationProtocols()).build())
        .maxIdleTimeout(5, TimeUnit.SECONDS)
        .initialMaxData(1 << 20).initialMaxStreamDataBidirectionalLocal(1 << 16)
        .build();
    udp = new Bootstrap().group(group).channel(NioDatagramChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            // First in the pipeline, so every datagram the codec writes passes here last.
            ch.pipeline().addLast(new Capture(), codec);
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
  }

  /**
   * Makes {@code count} first flights for a server at {@code server}.
   *
   * @return one datagram payload each, every one a new connection
   */
  List<byte[]> make(int count, InetSocketAddress server) throws Exception {
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      QuicChannel ch = QuicChannel.newBootstrap(udp).handler(new ChannelInboundHandlerAdapter())
          .streamHandler(new ChannelInboundHandlerAdapter()).remoteAddress(server).connect().getNow();
      out.add(nextNewInitial());
      if (ch != null) {
        ch.close();
      }
    }
    return out;
  }

  /**
   * The next captured datagram that starts with an Initial packet (RFC 9000 §17.2.2) for a
   * destination connection ID not seen before: skips the close packets of earlier connections.
   */
  private byte[] nextNewInitial() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      byte[] d = captured.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (d == null) {
        throw new IllegalStateException("the QUIC client sent no first flight within 10 s");
      }
      // Long header, fixed bit, type Initial: 0b1100_xxxx; then version (4), DCID length, DCID.
      if (d.length < 7 || (d[0] & 0xf0) != 0xc0) {
        continue;
      }
      int dcidLength = d[5] & 0xff;
      if (6 + dcidLength > d.length) {
        continue;
      }
      String dcid = java.util.HexFormat.of().formatHex(d, 6, 6 + dcidLength);
      if (seen.add(dcid)) {
        return d;
      }
    }
  }

  private final java.util.Set<String> seen = new java.util.HashSet<>();

  @Override
  public void close() {
    udp.close().awaitUninterruptibly();
    group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
  }

  /** Keeps each outgoing datagram's bytes and sends nothing; lets nothing in. */
  private final class Capture extends ChannelDuplexHandler {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      try {
        if (msg instanceof DatagramPacket) {
          ByteBuf content = ((DatagramPacket) msg).content();
          byte[] bytes = new byte[content.readableBytes()];
          content.getBytes(content.readerIndex(), bytes);
          captured.add(bytes);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
      promise.setSuccess();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }
  }
}
