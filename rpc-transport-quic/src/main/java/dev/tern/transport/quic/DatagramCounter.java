package dev.tern.transport.quic;

import dev.tern.rpc.spi.TransportEvents;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;

/**
 * Counts the UDP payload bytes of every datagram a QUIC endpoint's socket reads and writes, for
 * the transport's {@link TransportEvents}: an add per datagram, nothing allocated. Sits next to the
 * socket, after the test-only {@link ImpairmentHandler} when there is one, so that a datagram the
 * impairment drops counts as sent by its sender and not as received by its receiver, as on a lossy
 * network. A written datagram counts when it is handed to the socket (a segmented one, with all its
 * segments).
 */
final class DatagramCounter extends ChannelDuplexHandler {
  private final TransportEvents events;

  /**
   * A counter for one UDP channel.
   *
   * @param events where the bytes are reported
   */
  DatagramCounter(TransportEvents events) {
    this.events = events;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof DatagramPacket) {
      events.bytesReceived(((DatagramPacket) msg).content().readableBytes());
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof DatagramPacket) {
      events.bytesSent(((DatagramPacket) msg).content().readableBytes());
    }
    ctx.write(msg, promise);
  }
}
