package dev.tern.transport.quic;

import dev.tern.rpc.spi.DatagramImpairment;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sits first in a UDP channel's pipeline and drops, duplicates or reorders datagrams in both
 * directions, as a {@link DatagramImpairment} says. Test-only: the only way in is {@link
 * QuicTransportOptions#IMPAIRMENT}. One instance per UDP channel (not sharable: it holds state).
 */
final class ImpairmentHandler extends ChannelDuplexHandler {
  private final DatagramImpairment spec;
  private final SplittableRandom random;
  private final AtomicLong dropped = new AtomicLong();
  private DatagramPacket heldInbound;
  private final java.util.ArrayDeque<DatagramPacket> delayed = new java.util.ArrayDeque<>();
  private DatagramPacket heldOutbound;
  private ChannelPromise heldOutboundPromise;

  ImpairmentHandler(DatagramImpairment spec) {
    this.spec = spec;
    this.random = new SplittableRandom(spec.seed());
  }

  /** Datagrams dropped so far, both directions. */
  long dropped() {
    return dropped.get();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof DatagramPacket)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (spec.inboundDelayMillis() > 0) {
      // Held here rather than in the task alone, so that a channel closed (or a loop shut down)
      // before the delay ends still releases it; one delay for all, so they leave in order.
      delayed.add((DatagramPacket) msg);
      ctx.executor().schedule(() -> {
        DatagramPacket next = delayed.poll();
        if (next != null) {
          impairInbound(ctx, next);
        }
      }, spec.inboundDelayMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    impairInbound(ctx, (DatagramPacket) msg);
  }

  private void impairInbound(ChannelHandlerContext ctx, DatagramPacket packet) {
    if (!ctx.channel().isActive()) {
      packet.release();
      return;
    }
    double r = random.nextDouble();
    if (r < spec.lossRate()) {
      dropped.incrementAndGet();
      packet.release();
      return;
    }
    if (heldInbound == null && random.nextDouble() < spec.reorderRate()) {
      heldInbound = packet;
      return;
    }
    if (random.nextDouble() < spec.duplicateRate()) {
      ctx.fireChannelRead(packet.retainedDuplicate());
    }
    ctx.fireChannelRead(packet);
    if (heldInbound != null) {
      DatagramPacket late = heldInbound;
      heldInbound = null;
      ctx.fireChannelRead(late);
    }
    if (spec.inboundDelayMillis() > 0) {
      // Delayed datagrams arrive one by one, outside a read loop: end the "read batch" for each.
      ctx.fireChannelReadComplete();
    }
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof DatagramPacket)) {
      ctx.write(msg, promise);
      return;
    }
    DatagramPacket packet = (DatagramPacket) msg;
    if (random.nextDouble() < spec.lossRate()) {
      dropped.incrementAndGet();
      ReferenceCountUtil.release(packet);
      promise.trySuccess();
      return;
    }
    if (heldOutbound == null && random.nextDouble() < spec.reorderRate()) {
      heldOutbound = packet;
      heldOutboundPromise = promise;
      return;
    }
    if (random.nextDouble() < spec.duplicateRate()) {
      ctx.write(packet.retainedDuplicate(), ctx.voidPromise());
    }
    ctx.write(packet, promise);
    if (heldOutbound != null) {
      DatagramPacket late = heldOutbound;
      ChannelPromise latePromise = heldOutboundPromise;
      heldOutbound = null;
      heldOutboundPromise = null;
      ctx.write(late, latePromise);
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    releaseHeld();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releaseHeld();
    ctx.fireChannelInactive();
  }

  private void releaseHeld() {
    for (DatagramPacket p = delayed.poll(); p != null; p = delayed.poll()) {
      p.release();
    }
    if (heldInbound != null) {
      heldInbound.release();
      heldInbound = null;
    }
    if (heldOutbound != null) {
      heldOutbound.release();
      heldOutboundPromise.trySuccess();
      heldOutbound = null;
      heldOutboundPromise = null;
    }
  }
}
