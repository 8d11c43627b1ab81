package dev.tern.transport.quic;

import dev.tern.rpc.spi.ThrottledLog;
import dev.tern.rpc.spi.TransportEvents;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import java.util.logging.Logger;

/**
 * Sits before the QUIC codec in the server's UDP pipeline and drops, counts and logs (at FINE,
 * throttled) the datagrams RFC 9000 tells a server to discard that it can tell from their first
 * bytes, without allocating: an Initial packet in a datagram of fewer than 1200 bytes (§14.1) and
 * a version 1 long header whose connection ID is longer than 20 bytes (§17.2). What it lets pass
 * and quiche still rejects is dropped by Netty, which logs it at FINE per packet with a stack
 * trace; {@link QuietNettyLogs} moves those lines here too, throttled, so that FINE logging stays
 * usable under a flood of junk. Each datagram dropped here is also reported to the server's {@link
 * TransportEvents} as {@link TransportEvents#MALFORMED} (those Netty drops are not: it says nothing
 * of them but in its log).
 */
final class MalformedDatagrams extends ChannelInboundHandlerAdapter {
  static final ThrottledLog DROPPED = new ThrottledLog(Logger.getLogger("dev.tern.transport.quic"),
      "quic: malformed datagram dropped", ThrottledLog.DEFAULT_INTERVAL_NANOS);
  /** RFC 9000 §14.1: the smallest datagram that may carry a client's Initial packet. */
  static final int MIN_INITIAL_DATAGRAM = 1200;
  private static final int QUIC_V1 = 1;
  private final TransportEvents events;

  /**
   * A filter for one server's UDP channel.
   *
   * @param events where dropped datagrams are reported
   */
  MalformedDatagrams(TransportEvents events) {
    this.events = events;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof DatagramPacket && malformed(((DatagramPacket) msg).content())) {
      ((DatagramPacket) msg).release();
      DROPPED.event(DROPPED.wouldLog() ? "from " + ((DatagramPacket) msg).sender() : null);
      events.refused(TransportEvents.MALFORMED);
      return;
    }
    ctx.fireChannelRead(msg);
  }

  static boolean malformed(ByteBuf d) {
    int at = d.readerIndex();
    int length = d.readableBytes();
    if (length < 1) {
      return true;
    }
    int first = d.getUnsignedByte(at);
    if ((first & 0x80) == 0) {
      return false; // a short header (RFC 9000 §17.3): only quiche can judge it
    }
    if (length < 6) {
      return true; // shorter than a long header's first byte, version and DCID length (§17.2)
    }
    if (d.getInt(at + 1) != QUIC_V1) {
      return false; // another version: quiche answers with Version Negotiation (§6)
    }
    if (d.getUnsignedByte(at + 5) > RetryTokens.MAX_CID_BYTES) {
      return true; // §17.2: a v1 connection ID longer than 20 bytes
    }
    // Version 1 long packet types in bits 4-5 (§17.2): 0 is Initial.
    return ((first & 0x30) >> 4) == 0 && length < MIN_INITIAL_DATAGRAM;
  }
}
