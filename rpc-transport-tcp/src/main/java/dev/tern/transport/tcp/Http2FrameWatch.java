package dev.tern.transport.tcp;

import dev.tern.rpc.spi.TransportEvents;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.nio.charset.StandardCharsets;

/**
 * Follows one HTTP/2 connection's bytes frame by frame (RFC 9113 §4.1: a 9-byte header whose first
 * three bytes are the payload's length) and reports to {@link TransportEvents} what grpc-java's
 * public API does not show: streams the peer reset, and on a server the GOAWAY with which
 * grpc-netty cuts off a client for rapid reset. Nothing is copied or allocated: the frame headers
 * and the few payload bytes needed are read in place, every other payload byte is skipped.
 *
 * <ul>
 *   <li>An RST_STREAM (type 0x3, RFC 9113 §6.4) from the peer with an error code other than
 *       NO_ERROR is a stream reset ({@link TransportEvents#streamReset}). NO_ERROR is left out: a
 *       server that answered before the request ended asks the client to stop sending with it
 *       (§8.1), which aborts nothing.
 *   <li>A GOAWAY (type 0x7, §6.8) the server sends with ENHANCE_YOUR_CALM (0xb, §7) and grpc-netty's
 *       debug data {@code too_many_rststreams} is a connection closed for rapid reset (CVE-2023-44487),
 *       reported once per connection as {@link TransportEvents#RAPID_RESET}. grpc-netty sends the
 *       same code with {@code too_many_pings} for keep-alive abuse, which is not counted.
 * </ul>
 *
 * <p>On a server, inbound bytes begin with the client's connection preface (§3.4), which is checked
 * and skipped; on a client they begin with the server's SETTINGS frame, which is checked. If the
 * bytes are not what HTTP/2 says (a peer that does not speak it), the watch stops for that
 * direction: the connection fails anyway. Where the connection has TLS, the watch must see the
 * plaintext, so it runs in a handler right after Netty's {@code SslHandler} ({@link AfterTls}).
 * Confined to the connection's event loop.
 */
final class Http2FrameWatch {
  /** RFC 9113 §6.4. */
  static final int RST_STREAM = 0x3;
  /** RFC 9113 §6.5. */
  static final int SETTINGS = 0x4;
  /** RFC 9113 §6.8. */
  static final int GOAWAY = 0x7;
  /** RFC 9113 §7. */
  static final int NO_ERROR = 0x0;
  /** RFC 9113 §7. */
  static final int ENHANCE_YOUR_CALM = 0xb;
  /** RFC 9113 §3.4: what a client sends first. */
  static final byte[] CLIENT_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  /** The GOAWAY debug data of grpc-netty's rapid-reset limit ({@code maxRstFramesPerWindow}). */
  static final byte[] RAPID_RESET_DEBUG = "too_many_rststreams".getBytes(StandardCharsets.US_ASCII);
  private static final int FRAME_HEADER_BYTES = 9;

  private final Scanner inbound;
  /** Null on a client: nothing it sends is counted. */
  private final Scanner outbound;

  /**
   * A watch for one connection.
   *
   * @param events where resets and the rapid-reset GOAWAY are reported
   * @param server true for a server's connection, false for a client's
   */
  Http2FrameWatch(TransportEvents events, boolean server) {
    this.inbound = new Scanner(events, server ? CLIENT_PREFACE : null, !server, true, false);
    this.outbound = server ? new Scanner(events, null, true, false, true) : null;
  }

  /** Bytes read from the peer, in order, before HTTP/2 decodes them. */
  void inbound(ByteBuf bytes) {
    inbound.scan(bytes);
  }

  /** Bytes written to the peer, in order, as HTTP/2 encoded them. */
  void outbound(ByteBuf bytes) {
    if (outbound != null) {
      outbound.scan(bytes);
    }
  }

  /** One direction's frames. */
  private static final class Scanner {
    private final TransportEvents events;
    /** Bytes that must come before the first frame; null if none. */
    private final byte[] preface;
    private final boolean settingsFirst;
    private final boolean countResets;
    private final boolean watchGoAway;
    private int prefaceAt;
    private boolean stopped;
    private boolean firstFrame = true;
    private boolean rapidResetReported;
    // The frame being read.
    private int headerAt;
    private int length;
    private int type;
    private int payloadAt;
    private int code;
    private int debugMatched;

    /**
     * @param events where to report
     * @param preface bytes that come before the first frame, checked and skipped; null if none
     * @param settingsFirst whether the first frame must be SETTINGS (a server's preface)
     * @param countResets whether RST_STREAM frames are reported as stream resets
     * @param watchGoAway whether the rapid-reset GOAWAY is reported
     */
    Scanner(TransportEvents events, byte[] preface, boolean settingsFirst, boolean countResets, boolean watchGoAway) {
      this.events = events;
      this.preface = preface;
      this.settingsFirst = settingsFirst;
      this.countResets = countResets;
      this.watchGoAway = watchGoAway;
    }

    /** Follows the frames through {@code b}'s readable bytes, which are not consumed. */
    void scan(ByteBuf b) {
      if (stopped) {
        return;
      }
      int i = b.readerIndex();
      int end = b.writerIndex();
      while (i < end) {
        if (preface != null && prefaceAt < preface.length) {
          if (b.getByte(i) != preface[prefaceAt]) {
            stopped = true;
            return;
          }
          prefaceAt++;
          i++;
          continue;
        }
        if (headerAt < FRAME_HEADER_BYTES) {
          int v = b.getUnsignedByte(i++);
          if (headerAt < 3) {
            length = length << 8 | v; // 24 bits, big-endian
          } else if (headerAt == 3) {
            type = v;
          }
          // Flags and the stream identifier are not needed.
          if (++headerAt == FRAME_HEADER_BYTES) {
            if (firstFrame) {
              firstFrame = false;
              if (settingsFirst && type != SETTINGS) {
                stopped = true; // RFC 9113 §3.4: the server's preface is a SETTINGS frame
                return;
              }
            }
            if (length == 0) {
              frameEnded();
            }
          }
          continue;
        }
        int wanted = bytesWanted();
        if (payloadAt < wanted) {
          payloadByte(b.getUnsignedByte(i++));
          payloadAt++;
        } else {
          int n = Math.min(length - payloadAt, end - i);
          i += n;
          payloadAt += n;
        }
        if (payloadAt == length) {
          frameEnded();
        }
      }
    }

    /** How many of the current frame's payload bytes are read; the rest is skipped. */
    private int bytesWanted() {
      if (type == RST_STREAM && countResets) {
        return 4; // the error code (§6.4)
      }
      if (type == GOAWAY && watchGoAway) {
        return 8 + RAPID_RESET_DEBUG.length; // last stream ID, error code, debug data (§6.8)
      }
      return 0;
    }

    private void payloadByte(int v) {
      if (type == RST_STREAM) {
        code = code << 8 | v;
      } else if (payloadAt >= 4 && payloadAt < 8) {
        code = code << 8 | v;
      } else if (payloadAt >= 8) {
        int at = payloadAt - 8;
        if (debugMatched == at && (byte) v == RAPID_RESET_DEBUG[at]) {
          debugMatched++;
        }
      }
    }

    private void frameEnded() {
      if (type == RST_STREAM && countResets && length == 4 && code != NO_ERROR) {
        events.streamReset();
      } else if (type == GOAWAY && watchGoAway && !rapidResetReported && code == ENHANCE_YOUR_CALM
          && length == 8 + RAPID_RESET_DEBUG.length && debugMatched == RAPID_RESET_DEBUG.length) {
        rapidResetReported = true;
        events.refused(TransportEvents.RAPID_RESET);
      }
      headerAt = 0;
      length = 0;
      type = 0;
      payloadAt = 0;
      code = 0;
      debugMatched = 0;
    }
  }

  /**
   * Runs a watch on the plaintext of a TLS connection: placed right after the {@code SslHandler},
   * before any HTTP/2 byte passes it, by {@link WireCounter}.
   */
  static final class AfterTls extends ChannelDuplexHandler {
    private final Http2FrameWatch watch;

    /** @param watch the connection's watch */
    AfterTls(Http2FrameWatch watch) {
      this.watch = watch;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ByteBuf) {
        watch.inbound((ByteBuf) msg);
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (msg instanceof ByteBuf) {
        watch.outbound((ByteBuf) msg);
      }
      ctx.write(msg, promise);
    }
  }
}
