package dev.tern.transport.tcp;

import dev.tern.rpc.spi.TransportEvents;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.epoll.EpollTcpInfo;
import io.netty.handler.ssl.SslHandler;

/**
 * First in a TCP connection's pipeline, on server and client: reports the connection's bytes and
 * retransmissions to the transport's {@link TransportEvents}, and runs its {@link Http2FrameWatch}
 * (in this handler on a plaintext connection; on a TLS one in a handler it places right after the
 * {@code SslHandler}, which must see the plaintext). Counting is an add per buffer; nothing is
 * allocated per read or write. One instance per connection, on its event loop.
 *
 * <ul>
 *   <li>Bytes: every buffer read from and written to the socket, so TLS records and HTTP/2 framing
 *       count; a write counts when it is handed to the socket's outbound buffer.
 *   <li>Retransmissions (epoll only): the kernel's count of the connection's retransmitted
 *       segments ({@code tcpi_total_retrans} of TCP_INFO), read after each batch of reads, when an
 *       exception reaches the socket and just before a close this side makes; what grew since the
 *       last read is reported. The whole count is in once the connection has closed (a close the
 *       peer makes is seen at the read of its FIN). On NIO there is no TCP_INFO and nothing is
 *       reported.
 * </ul>
 */
final class WireCounter extends ChannelDuplexHandler {
  private final TransportEvents events;
  /** Null when the connection is not watched for frames. */
  private final Http2FrameWatch frames;
  private final boolean tls;
  private boolean framesPlaced;
  /** Refilled in place at each read; null where the socket is not epoll's. */
  private final EpollTcpInfo tcpInfo;
  private long retransmittedReported;

  /** Use {@link #install}. */
  private WireCounter(TransportEvents events, boolean server, boolean tls, boolean epoll, RapidResetLimit resetLimit) {
    this.events = events;
    this.frames = new Http2FrameWatch(events, server, resetLimit);
    this.tls = tls;
    this.tcpInfo = epoll && events != TransportEvents.NONE ? new EpollTcpInfo() : null;
  }

  /**
   * Puts a counter first in {@code channel}'s pipeline, before it is registered (grpc-netty's
   * handlers are added after it); nothing if {@code events} is {@link TransportEvents#NONE} and
   * there is no reset limit to feed.
   *
   * @param channel a new connection's channel
   * @param events where to report
   * @param server true on a server's connection
   * @param tls true if the connection will run TLS
   * @param resetLimit a server connection's rapid-reset limit, fed by the frame watch; null if none
   */
  static void install(Channel channel, TransportEvents events, boolean server, boolean tls,
      RapidResetLimit resetLimit) {
    if (events == TransportEvents.NONE && resetLimit == null) {
      return;
    }
    if (resetLimit != null) {
      resetLimit.attach(channel);
    }
    channel.pipeline().addFirst(new WireCounter(events, server, tls, channel instanceof EpollSocketChannel, resetLimit));
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.fireChannelActive();
    if (tls) {
      placeFrameWatch(ctx); // grpc-netty adds the SslHandler as the connection turns active
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf) {
      ByteBuf b = (ByteBuf) msg;
      events.bytesReceived(b.readableBytes());
      if (!tls) {
        frames.inbound(b);
      } else if (!framesPlaced) {
        placeFrameWatch(ctx);
      }
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf) {
      ByteBuf b = (ByteBuf) msg;
      events.bytesSent(b.readableBytes());
      if (tls && !framesPlaced) {
        placeFrameWatch(ctx);
      }
    }
    ctx.write(msg, promise);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    // Also fired for the read that met the peer's FIN, before Netty closes the socket.
    pollRetransmissions(ctx.channel());
    ctx.fireChannelReadComplete();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    pollRetransmissions(ctx.channel()); // a read error closes the socket next
    ctx.fireExceptionCaught(cause);
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    pollRetransmissions(ctx.channel()); // the last moment the socket can still be asked
    ctx.close(promise);
  }

  /**
   * TLS: once the {@code SslHandler} is in the pipeline, the frame watch goes right after it. It
   * is added before the TLS handshake starts, so no HTTP/2 byte has passed it yet.
   */
  private void placeFrameWatch(ChannelHandlerContext ctx) {
    if (framesPlaced) {
      return;
    }
    ChannelHandlerContext ssl = ctx.pipeline().context(SslHandler.class);
    if (ssl != null) {
      framesPlaced = true;
      ctx.pipeline().addAfter(ssl.name(), null, new Http2FrameWatch.AfterTls(frames));
    }
  }

  /** Reports what TCP_INFO's retransmission total grew by since the last look (epoll, open sockets only). */
  private void pollRetransmissions(Channel ch) {
    if (tcpInfo == null || !ch.isOpen()) {
      return; // once closed the descriptor is gone (and its number may be another socket's)
    }
    try {
      ((EpollSocketChannel) ch).tcpInfo(tcpInfo);
    } catch (ChannelException e) {
      return;
    }
    long total = tcpInfo.totalRetrans();
    if (total > retransmittedReported) {
      events.retransmitted(total - retransmittedReported);
      retransmittedReported = total;
    }
  }
}
