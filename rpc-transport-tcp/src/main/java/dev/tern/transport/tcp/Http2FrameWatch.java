package dev.tern.transport.tcp;

import dev.tern.rpc.spi.TransportEvents;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;

/**
 * Follows one HTTP/2 connection's bytes frame by frame (RFC 9113 §4.1: a 9-byte header whose first
 * three bytes are the payload's length) and reports to {@link TransportEvents} what grpc-java's
 * public API does not show: streams the peer reset; on a server it also feeds each RST_STREAM the
 * client sends to the connection's {@link RapidResetLimit}. Nothing is copied or allocated: the
 * frame headers and the few payload bytes needed are read in place, every other payload byte is
 * skipped.
 *
 * <ul>
 *   <li>An RST_STREAM (type 0x3, RFC 9113 §6.4) from the peer with an error code other than
 *       NO_ERROR is a stream reset ({@link TransportEvents#streamReset}). NO_ERROR is left out: a
 *       server that answered before the request ended asks the client to stop sending with it
 *       (§8.1), which aborts nothing.
 *   <li>On a server, every RST_STREAM from the client, whatever its code, counts towards the
 *       rapid-reset limit (CVE-2023-44487), as grpc-java's {@code maxRstFramesPerWindow} counts.
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
  /** RFC 9113 §7. */
  static final int NO_ERROR = 0x0;
  /** RFC 9113 §3.4: what a client sends first. */
  static final byte[] CLIENT_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final int FRAME_HEADER_BYTES = 9;

  private final Scanner inbound;

  /**
   * A watch for one connection.
   *
   * @param events where resets are reported
   * @param server true for a server's connection, false for a client's
   * @param resetLimit the server connection's rapid-reset limit; null if none
   */
  Http2FrameWatch(TransportEvents events, boolean server, RapidResetLimit resetLimit) {
    this.inbound = new Scanner(events, server ? CLIENT_PREFACE : null, !server, resetLimit);
  }

  /** Bytes read from the peer, in order, before HTTP/2 decodes them. */
  void inbound(ByteBuf bytes) {
    inbound.scan(bytes);
  }

  /** One direction's frames. */
  private static final class Scanner {
    private final TransportEvents events;
    /** Bytes that must come before the first frame; null if none. */
    private final byte[] preface;
    private final boolean settingsFirst;
    /** Null where none. */
    private final RapidResetLimit resetLimit;
    private int prefaceAt;
    private boolean stopped;
    private boolean firstFrame = true;
    // The frame being read.
    private int headerAt;
    private int length;
    private int type;
    private int payloadAt;
    private int code;

    /**
     * @param events where to report
     * @param preface bytes that come before the first frame, checked and skipped; null if none
     * @param settingsFirst whether the first frame must be SETTINGS (a server's preface)
     * @param resetLimit what each RST_STREAM counts towards; null if nothing
     */
    Scanner(TransportEvents events, byte[] preface, boolean settingsFirst, RapidResetLimit resetLimit) {
      this.events = events;
      this.preface = preface;
      this.settingsFirst = settingsFirst;
      this.resetLimit = resetLimit;
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
      return type == RST_STREAM ? 4 : 0; // the error code (§6.4)
    }

    private void payloadByte(int v) {
      code = code << 8 | v;
    }

    private void frameEnded() {
      if (type == RST_STREAM && length == 4) {
        if (code != NO_ERROR) {
          events.streamReset();
        }
        if (resetLimit != null) {
          resetLimit.reset();
        }
      }
      headerAt = 0;
      length = 0;
      type = 0;
      payloadAt = 0;
      code = 0;
    }
  }

  /**
   * Runs a watch on the plaintext of a TLS connection: placed right after the {@code SslHandler},
   * before any HTTP/2 byte passes it, by {@link WireCounter}.
   */
  static final class AfterTls extends ChannelInboundHandlerAdapter {
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

  }
}
