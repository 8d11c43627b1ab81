package dev.tern.transport.tcp;

import dev.tern.rpc.spi.ThrottledLog;
import dev.tern.rpc.spi.TransportEvents;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * HTTP/2 rapid reset (CVE-2023-44487) on one server connection: a client that opens streams and
 * resets them at once makes the server start call after call while it stays under the stream
 * limit. Past {@code max} RST_STREAM frames from the client within a fixed window of {@code
 * windowSeconds} (the count grpc-java's {@code maxRstFramesPerWindow} keeps), the connection is
 * ended so that a legitimate client whose calls time out or are cancelled together loses none of
 * its other calls:
 *
 * <ul>
 *   <li>If no stream is active, GOAWAY with ENHANCE_YOUR_CALM (RFC 9113 §7) and the debug data
 *       {@code too_many_rststreams}, naming the last stream the server created, and the close
 *       (§5.4.1): nothing is in flight to spare. A client that only resets streams is cut off so,
 *       at the reset past the limit.
 *   <li>Otherwise a graceful GOAWAY first (§6.8: NO_ERROR, last stream 2^31-1, so that streams
 *       already on their way are still served): the client opens no new streams here, and its
 *       calls in flight run to their end. Once no stream is active, or after {@link
 *       #DRAIN_GRACE_MILLIS}, the GOAWAY with ENHANCE_YOUR_CALM and the close follow. A client
 *       that goes on resetting streams meanwhile (another {@code max} resets) is closed at once.
 * </ul>
 *
 * <p>The limit is reported once per connection as {@link TransportEvents#RAPID_RESET} and logged
 * at FINE, throttled. Confined to the connection's event loop.
 */
final class RapidResetLimit {
  private static final Logger LOG = Logger.getLogger("dev.tern.transport.tcp");
  /** The GOAWAY debug data, grpc-netty's for its own limit. */
  static final byte[] DEBUG = "too_many_rststreams".getBytes(StandardCharsets.US_ASCII);
  /** Longest the calls in flight get, once the limit is passed, before the connection is closed. */
  static final long DRAIN_GRACE_MILLIS = 10_000;

  private final int max;
  private final long windowNanos;
  private final TransportEvents events;
  private final ThrottledLog log;
  private Channel channel;
  private int inWindow;
  private long windowStartNanos;
  /** Resets since the graceful GOAWAY; -1 before it. */
  private int afterGoAway = -1;
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
    if (ended || channel == null) {
      return;
    }
    if (afterGoAway >= 0) {
      if (++afterGoAway > max) {
        end(); // streams opened and reset after the GOAWAY: not a client winding down
      }
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
    if (connection.numActiveStreams() == 0) {
      end();
      return;
    }
    afterGoAway = 0;
    ChannelHandlerContext ctx = channel.pipeline().context(h);
    h.goAway(ctx, Integer.MAX_VALUE, Http2Error.NO_ERROR.code(), Unpooled.wrappedBuffer(DEBUG), ctx.newPromise());
    ctx.flush();
    connection.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        // Netty tells listeners while it still counts the stream: look once it is gone.
        channel.eventLoop().execute(() -> {
          if (connection.numActiveStreams() == 0) {
            end();
          }
        });
      }
    });
    channel.eventLoop().schedule(this::end, DRAIN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * GOAWAY ENHANCE_YOUR_CALM, naming the last stream created (the client may send the rest again
   * elsewhere), then the close, which Netty makes once a GOAWAY with an error is written.
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
    ChannelHandlerContext ctx = channel.pipeline().context(h);
    h.goAway(ctx, h.connection().remote().lastStreamCreated(), Http2Error.ENHANCE_YOUR_CALM.code(),
        Unpooled.wrappedBuffer(DEBUG), ctx.newPromise());
    ctx.flush();
  }
}
