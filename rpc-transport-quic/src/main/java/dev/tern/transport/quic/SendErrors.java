package dev.tern.transport.quic;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * Watches the datagrams a UDP socket sends and counts those the kernel refused (no route, the
 * source address removed, ...). The QUIC codec writes its datagrams without looking at the
 * outcome; a refused send is a lost packet to quiche, which recovers it (RFC 9002 §6) while the
 * path lasts, but a path that refuses every send is dead, and the transport names that in the
 * status it fails the calls with once the idle timeout closes the connection (RFC 9000 §10.1).
 *
 * <p>One per socket; confined to its event loop except for the counters, which any thread may
 * read. Adds one shared listener to each write's promise: no allocation per datagram.
 */
final class SendErrors extends ChannelOutboundHandlerAdapter implements ChannelFutureListener {
  private static final InternalLogger LOG = InternalLoggerFactory.getInstance(SendErrors.class);

  private volatile long failed;
  private volatile long sent;
  private volatile Throwable last;
  /** {@code System.nanoTime()} of the first refused send since the last accepted one; 0: none. */
  private long failingSinceNanos;

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!promise.isVoid()) {
      promise.addListener(this);
    }
    ctx.write(msg, promise);
  }

  @Override
  public void operationComplete(ChannelFuture future) {
    if (future.isSuccess()) {
      sent++;
      failingSinceNanos = 0;
      return;
    }
    Throwable cause = future.cause();
    failed++;
    last = cause;
    if (failingSinceNanos == 0) {
      failingSinceNanos = System.nanoTime();
      // The first failure of a streak only: a dead path would otherwise log every packet.
      LOG.debug("UDP send from {} refused: {}", future.channel().localAddress(), String.valueOf(cause));
    }
  }

  /** Datagrams the kernel refused to send. */
  long failed() {
    return failed;
  }

  /** Datagrams the kernel accepted. */
  long sent() {
    return sent;
  }

  /** The last refusal's cause, or null. */
  Throwable last() {
    return last;
  }

  /**
   * How long sends have been refused without one being accepted in between, in milliseconds at
   * {@code nowNanos}; 0 when the last send went out. On the event loop.
   */
  long failingForMillis(long nowNanos) {
    return failingSinceNanos == 0 ? 0 : (nowNanos - failingSinceNanos) / 1_000_000L;
  }

  /**
   * A clause for a status description: {@code ""} when no send failed; else the count, the last
   * error and, while sends are still refused, for how long. On the event loop.
   */
  String describe() {
    long f = failed;
    if (f == 0) {
      return "";
    }
    String streak = failingSinceNanos == 0 ? ""
        : " (all of the last " + failingForMillis(System.nanoTime()) + " ms)";
    return "; " + f + " UDP sends refused by the kernel" + streak
        + ", the last: " + last;
  }
}
