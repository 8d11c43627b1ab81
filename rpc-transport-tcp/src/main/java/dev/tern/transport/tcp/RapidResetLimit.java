package dev.tern.transport.tcp;

import dev.tern.rpc.spi.ThrottledLog;
import dev.tern.rpc.spi.TransportEvents;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * HTTP/2 rapid reset (CVE-2023-44487) on one server connection: a client that opens streams and
 * resets them at once makes the server start call after call while it stays under the stream
 * limit. Past {@code max} RST_STREAM frames from the client within a fixed window of {@code
 * windowSeconds} (the count grpc-java's {@code maxRstFramesPerWindow} keeps), the connection
 * takes no new work. It is ended the way RFC 9113 §6.8 describes a graceful shutdown, so that a
 * legitimate client whose calls time out or are cancelled together loses none of its other calls:
 *
 * <ol>
 *   <li>GOAWAY with NO_ERROR and the last stream 2^31-1: the client opens no new stream here, and
 *       the streams already on their way are still served. (An error code here would make
 *       grpc-java fail its calls on their way as processed, unretried.)
 *   <li>{@link #SECOND_GOAWAY_MILLIS} later, time for the first to arrive, a GOAWAY naming the last
 *       stream created: Netty ignores any newer stream from then on.
 *   <li>Once no stream is active after that, GOAWAY with ENHANCE_YOUR_CALM (§7) and the debug
 *       data {@code too_many_rststreams}, and the close (§5.4.1). The calls in flight run to their
 *       end, however long: a client that holds streams open without resetting them is an
 *       ordinary client.
 * </ol>
 *
 * <p>Resets are not counted during the drain: a client may cancel every call it has open, and
 * closing early for them sent the error code past calls grpc-java had already sent (a 2,000-call
 * deadline storm failed the next call). What an attacker gains is the drain's first second, in
 * which its streams still start; from the second GOAWAY on Netty ignores them. A client that only
 * reset streams is closed at the second GOAWAY. The limit is reported once per connection as {@link
 * TransportEvents#RAPID_RESET} and logged at FINE, throttled. Confined to the connection's event
 * loop.
 */
final class RapidResetLimit {
  /** The GOAWAY debug data, grpc-netty's for its own limit. */
  static final byte[] DEBUG = "too_many_rststreams".getBytes(StandardCharsets.US_ASCII);
  /** From the first GOAWAY of a drain to the second, which names the last stream created. */
  static final long SECOND_GOAWAY_MILLIS = 1_000;

  private final int max;
  private final long windowNanos;
  private final TransportEvents events;
  private final ThrottledLog log;
  private Channel channel;
  private int inWindow;
  private long windowStartNanos;
  /** Whether the drain has begun. */
  private boolean draining;
  /** Whether the GOAWAY naming the last stream was sent: no new stream can start. */
  private boolean closedToNewStreams;
  private boolean ended;

  /**
   * @param max resets allowed per window, more than 0
   * @param windowSeconds the window, more than 0
   * @param events where the limit is reported
   * @param log where it is logged
   */
  RapidResetLimit(int max, int windowSeconds, TransportEvents events, ThrottledLog log) {
    this.max = max;
    this.windowNanos = TimeUnit.SECONDS.toNanos(windowSeconds);
    this.events = events;
    this.log = log;
  }

  /** The connection this limit guards; set before its first byte is read. */
  void attach(Channel channel) {
    this.channel = channel;
  }

  /** The client sent an RST_STREAM frame. */
  void reset() {
    if (ended || draining || channel == null) {
      return;
    }
    long now = System.nanoTime();
    if (inWindow == 0 || now - windowStartNanos > windowNanos) {
      windowStartNanos = now;
      inWindow = 0;
    }
    if (++inWindow > max) {
      events.refused(TransportEvents.RAPID_RESET);
      log.event(log.wouldLog() ? channel.remoteAddress() + ": " + inWindow + " streams reset within "
          + TimeUnit.NANOSECONDS.toSeconds(windowNanos) + " s" : null);
      drain();
    }
  }

  private void drain() {
    Http2ConnectionHandler h = channel.pipeline().get(Http2ConnectionHandler.class);
    if (h == null) {
      ended = true;
      channel.close(); // no HTTP/2 handler yet or any more: nothing to drain
      return;
    }
    Http2Connection connection = h.connection();
    draining = true;
    goAway(h, Integer.MAX_VALUE, Http2Error.NO_ERROR);
    channel.eventLoop().schedule(() -> {
      Http2ConnectionHandler now = channel.pipeline().get(Http2ConnectionHandler.class);
      if (ended || now == null || !channel.isActive()) {
        return;
      }
      closedToNewStreams = true;
      goAway(now, now.connection().remote().lastStreamCreated(), Http2Error.NO_ERROR);
      if (now.connection().numActiveStreams() == 0) {
        end();
      }
    }, SECOND_GOAWAY_MILLIS, TimeUnit.MILLISECONDS);
    connection.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        // Netty tells listeners while it still counts the stream: look once it is gone.
        channel.eventLoop().execute(() -> {
          if (closedToNewStreams && connection.numActiveStreams() == 0) {
            end();
          }
        });
      }
    });
  }

  /**
   * GOAWAY ENHANCE_YOUR_CALM, naming the last stream created, then the close. Written with the
   * frame writer itself: Netty's {@code goAway} sends nothing for a GOAWAY naming the same last
   * stream as the one before it.
   */
  private void end() {
    if (ended) {
      return;
    }
    ended = true;
    Http2ConnectionHandler h = channel.pipeline().get(Http2ConnectionHandler.class);
    if (h == null || !channel.isActive()) {
      channel.close();
      return;
    }
    Http2Connection connection = h.connection();
    int last = connection.remote().lastStreamCreated();
    if (!connection.goAwaySent()) {
      goAway(h, last, Http2Error.ENHANCE_YOUR_CALM); // Netty closes once it is written
      return;
    }
    ChannelHandlerContext ctx = channel.pipeline().context(h);
    h.encoder().frameWriter().writeGoAway(ctx, last, Http2Error.ENHANCE_YOUR_CALM.code(),
        Unpooled.wrappedBuffer(DEBUG), ctx.newPromise()).addListener(ChannelFutureListener.CLOSE);
    ctx.flush();
  }

  private void goAway(Http2ConnectionHandler h, int lastStreamId, Http2Error error) {
    ChannelHandlerContext ctx = channel.pipeline().context(h);
    h.goAway(ctx, lastStreamId, error.code(), Unpooled.wrappedBuffer(DEBUG), ctx.newPromise());
    ctx.flush();
  }
}
