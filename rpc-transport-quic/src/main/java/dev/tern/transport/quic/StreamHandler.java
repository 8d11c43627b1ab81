package dev.tern.transport.quic;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamResetException;
import io.netty.handler.codec.quic.QuicTransportError;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;

/**
 * The inbound half shared by client and server streams: HTTP/3 frames in, whole messages out, at
 * most as many as were requested. Reads from the QUIC stream only while requested messages are
 * missing or nothing at all is buffered, so an unread stream stops granting the peer credit (quiche
 * returns credit as bytes are read) while resets and FIN are still noticed. Everything runs on the
 * stream's event loop.
 */
abstract class StreamHandler extends ChannelDuplexHandler {
  static final long H3_NO_ERROR = Http3ErrorCode.H3_NO_ERROR.code();
  static final long H3_REQUEST_CANCELLED = Http3ErrorCode.H3_REQUEST_CANCELLED.code();
  static final long H3_REQUEST_REJECTED = Http3ErrorCode.H3_REQUEST_REJECTED.code();
  static final long H3_INTERNAL_ERROR = Http3ErrorCode.H3_INTERNAL_ERROR.code();

  /** RFC 9114 §8.1's name of an HTTP/3 error code, with the code. */
  static String h3ErrorName(long code) {
    for (Http3ErrorCode c : Http3ErrorCode.values()) {
      if (c.code() == code) {
        return c.name() + " (0x" + Long.toHexString(code) + ")";
      }
    }
    return "application error 0x" + Long.toHexString(code);
  }
  static final long H3_EXCESSIVE_LOAD = Http3ErrorCode.H3_EXCESSIVE_LOAD.code();

  QuicStreamChannel channel;
  MessageDeframer deframer;
  private int requested;
  private boolean inputDone;
  private boolean endDelivered;
  boolean finished;

  /** Asks for {@code n} more messages; on the event loop. */
  final void addRequest(int n) {
    requested = (int) Math.min(Integer.MAX_VALUE, (long) requested + n);
    deliver();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (finished) {
        return;
      }
      if (msg instanceof Http3DataFrame) {
        deframer.add(((Http3DataFrame) msg).content().retain());
        deliver();
      } else if (msg instanceof Http3HeadersFrame) {
        onHeadersFrame((Http3HeadersFrame) msg);
        deliver();
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    maybeRead();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      inputDone = true;
      onFinReceived();
      deliver();
    }
    ReferenceCountUtil.release(evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (!finished && ctx.channel().isWritable()) {
      onWritable();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (finished) {
      return;
    }
    if (cause instanceof QuicStreamResetException) {
      onPeerReset(((QuicStreamResetException) cause).applicationProtocolCode());
    } else if (cause instanceof QuicException
        && QuicTransportError.STREAM_STATE_ERROR.equals(((QuicException) cause).error())) {
      onStreamGone(cause);
    } else {
      onFailure(Status.INTERNAL.withDescription("QUIC stream error: " + cause).withCause(cause));
    }
  }

  /**
   * The stream channel closed. Netty closes a bidirectional stream as soon as it has both sent and
   * received a FIN (RFC 9000 §3.2 "Data Read" and §3.1 "Data Recvd"), which on a client that
   * half-closed its request happens right after the response's last bytes are read, while messages
   * may still wait in the deframer for the application's request-n. Those bytes are complete: once
   * the FIN has been seen, the close ends nothing, and the buffered messages, then the end of input
   * (the trailers on a client), are delivered as they are requested. Only a close before the FIN
   * loses data and fails the call.
   */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (!finished && !inputDone) {
      onFailure(closedBeforeEnd());
    }
    ctx.fireChannelInactive();
  }

  /** The status of a call whose stream closed before it ended. */
  Status closedBeforeEnd() {
    return Status.UNAVAILABLE.withDescription("QUIC stream closed before the call ended");
  }

  /** Hands over every requested message that is buffered, then the end of input if reached. */
  final void deliver() {
    if (finished || deframer == null) {
      return;
    }
    try {
      while (requested > 0 && !finished) {
        ByteBuffer message = deframer.next();
        if (message == null) {
          break;
        }
        requested--;
        onMessage(message);
      }
    } catch (StatusRuntimeException e) {
      onFailure(e.getStatus());
      return;
    }
    if (!finished && !endDelivered && inputEnded() && !deframer.hasMessage()) {
      if (deframer.bufferedBytes() > 0) {
        onFailure(Status.INTERNAL.withDescription("stream ended inside a message ("
            + deframer.bufferedBytes() + " bytes left)"));
        return;
      }
      endDelivered = true;
      onInputEnd();
    }
    maybeRead();
  }

  /** Whether the peer will send no more messages (FIN seen, or trailers on a client). */
  boolean inputEnded() {
    return inputDone;
  }

  final boolean inputDone() {
    return inputDone;
  }

  final void maybeRead() {
    if (inputDone || channel == null || !channel.isActive()) {
      return;
    }
    if (finished) {
      // The call ended before the peer's FIN was read (a client ends its call at the trailers).
      // Keep reading, discarding, until the FIN: quiche keeps an unread stream in its readable set
      // and never collects it (RFC 9000 §3.2: the receive side ends at "Data Read"), so every
      // later packet would walk all such streams and Netty's stream map would grow without bound.
      channel.read();
      return;
    }
    if (deframer.bufferedBytes() == 0 || (requested > 0 && !deframer.hasMessage())) {
      channel.read();
    }
  }

  /** Marks the stream finished and frees its buffers; later events are ignored. */
  final void finish() {
    finished = true;
    if (deframer != null) {
      deframer.release();
    }
  }

  /**
   * A reserved HTTP/3 frame (RFC 9114 §7.2.8: type {@code 0x1f * N + 0x21}, here N = 0, and no
   * payload), which every peer ignores: the bytes a FIN is sent with.
   */
  /** Netty's HTTP/3 frame codec (not public): the handler the FIN's carrier is written below. */
  private static final Class<? extends io.netty.channel.ChannelHandler> HTTP3_CODEC = http3Codec();

  private static Class<? extends io.netty.channel.ChannelHandler> http3Codec() {
    try {
      return Class.forName("io.netty.handler.codec.http3.Http3FrameCodec", false, StreamHandler.class.getClassLoader())
          .asSubclass(io.netty.channel.ChannelHandler.class);
    } catch (ClassNotFoundException | ClassCastException e) {
      return null; // a FIN alone then, as shutdownOutput sends it
    }
  }

  private static final io.netty.buffer.ByteBuf FIN_CARRIER = io.netty.buffer.Unpooled.unreleasableBuffer(
      io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {0x21, 0x00}));

  /**
   * Ends this side of the stream (the FIN, RFC 9000 §3.1) after what was written before. The FIN
   * is not sent alone: the quiche inside Netty 4.2.18 counts a stream's sending side complete
   * once its data is acknowledged, so a zero-length FIN written after that is never sent, or not
   * sent again when the packet carrying it is lost, and the peer never sees the end of the stream
   * (a request that was half-closed waited for its deadline about once in 400 calls under 4%
   * loss). The FIN therefore goes out in one STREAM frame with two bytes of new data, a reserved
   * HTTP/3 frame, written below the HTTP/3 codec, after what the codec has written.
   *
   * @param ch the stream
   * @return the write's future
   */
  static io.netty.channel.ChannelFuture finWithCarrier(QuicStreamChannel ch) {
    ChannelHandlerContext below = HTTP3_CODEC == null ? null : ch.pipeline().context(HTTP3_CODEC);
    if (below == null) {
      return ch.shutdownOutput();
    }
    return below.writeAndFlush(new io.netty.handler.codec.quic.DefaultQuicStreamFrame(FIN_CARRIER.duplicate(), true));
  }

  /** Resets both directions of the stream with {@code code} (RESET_STREAM and STOP_SENDING). */
  final void resetStream(long code) {
    QuicStreamChannel ch = channel;
    if (ch != null && ch.isActive()) {
      ch.shutdown((int) code).addListener(f -> ch.close());
    }
  }

  /** The status of a peer reset (RFC 9114 §8.1 codes; mapped like gRPC's RST_STREAM codes). */
  static Status resetStatus(long code, String who) {
    String what = who + " reset the stream (HTTP/3 error 0x" + Long.toHexString(code) + ")";
    if (code == H3_REQUEST_CANCELLED) {
      return Status.CANCELLED.withDescription(what);
    }
    if (code == H3_REQUEST_REJECTED) {
      return Status.UNAVAILABLE.withDescription(what + ": request not processed");
    }
    if (code == Http3ErrorCode.H3_EXCESSIVE_LOAD.code()) {
      return Status.RESOURCE_EXHAUSTED.withDescription(what);
    }
    return Status.INTERNAL.withDescription(what);
  }

  /** The peer's FIN arrived (its messages may not all be delivered yet). */
  void onFinReceived() {}

  abstract void onHeadersFrame(Http3HeadersFrame frame);

  abstract void onMessage(ByteBuffer message);

  abstract void onInputEnd();

  abstract void onWritable();

  abstract void onPeerReset(long code);

  /**
   * A read found the stream gone from the QUIC connection (quiche's invalid stream state): this
   * side had not ended it, so the peer aborted it (RESET_STREAM and STOP_SENDING, RFC 9000 §3.1
   * and §3.2) and the stream was collected before its reset code was read. By default the call
   * fails with {@code INTERNAL}, naming the error.
   *
   * @param cause what the read reported
   */
  void onStreamGone(Throwable cause) {
    onFailure(Status.INTERNAL.withDescription("QUIC stream aborted by the peer before its reset code was read: "
        + cause).withCause(cause));
  }

  abstract void onFailure(Status status);
}
