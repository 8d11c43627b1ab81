package dev.tern.transport.quic;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.DefaultHttp3UnknownFrame;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamPriority;
import java.nio.ByteBuffer;

/**
 * The server's end of one call: an HTTP/3 request stream. Created for each stream the client
 * opens; hands the call to the transport listener once the request HEADERS arrive.
 */
final class QuicServerStream extends StreamHandler implements ServerStream {
  /** RFC 9114 §7.2.8: 0x1f * N + 0x21 is reserved (N = 2: Netty wants a two-byte type). */
  private static final long RESERVED_FRAME_TYPE = 0x1f * 2 + 0x21;
  private final ServerConnection connection;
  private EventLoop loop;
  private boolean earlyData;
  private RequestHeaders headers;
  private ServerStreamListener listener;
  private String encoding = "identity";
  /** The response messages' compressor; null for identity. */
  private io.grpc.Compressor compressor;
  private boolean headersSent;
  private boolean closeSent;
  /** Response bytes written and not yet handed to quiche; {@link #isReady()} waits for them. */
  private final UnsentBytes unsent = new UnsentBytes();
  private ChannelFuture lastWrite;
  private volatile boolean ready;
  /** The connection's attributes when this stream's headers arrived; null for a 0-RTT stream. */
  private volatile io.grpc.Attributes attributes;
  private io.netty.util.concurrent.ScheduledFuture<?> probe;

  QuicServerStream(ServerConnection connection) {
    this.connection = connection;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = (QuicStreamChannel) ctx.channel();
    loop = channel.eventLoop();
    // RFC 9001 §4.6.1: created before the client's first 1-RTT packet, so carried by 0-RTT.
    earlyData = connection.inEarlyData();
    deframer = new MessageDeframer(channel.alloc(), connection.maxInboundMessageBytes(), true,
        connection.options().get(dev.tern.rpc.spi.TransportOptions.DECOMPRESSOR_REGISTRY));
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    maybeRead();
    ctx.fireChannelActive();
  }

  @Override
  void onHeadersFrame(Http3HeadersFrame frame) {
    if (headers != null) {
      return; // request trailers: gRPC defines none, ignored
    }
    if (!connection.acceptsStreams()) {
      // RFC 9114 §4.1.1: not processed, the client may retry it elsewhere.
      finish();
      resetStream(H3_REQUEST_REJECTED);
      connection.streamRefusedAfterGoAway();
      return;
    }
    try {
      headers = GrpcHttp3Headers.parseRequest(frame.headers(), earlyData);
    } catch (StatusRuntimeException e) {
      refuse(e.getStatus());
      return;
    }
    CharSequence enc = frame.headers().get("grpc-encoding");
    deframer.encoding(enc == null ? null : enc.toString());
    if (!dev.tern.rpc.Priority.DEFAULT.equals(headers.priority())) {
      channel.updatePriority(new QuicStreamPriority(headers.priority().urgency(), headers.priority().incremental()));
    }
    connection.streamOpened(this);
    attributes = connection.readyAttributes();
    // Ready from the start (isReady() is true while the listener is being made), and said so once
    // the listener exists, as grpc-java's transports do: a server that writes only from its
    // on-ready handler would otherwise never start.
    ready = channel.isWritable();
    listener = connection.transportListener().streamCreated(this, headers);
    updateReady();
    if (ready) {
      listener.onReady();
    }
    startCancelProbe();
  }

  /** Answers a request that cannot become a call with a trailers-only response. */
  private void refuse(Status status) {
    channel.writeAndFlush(new DefaultHttp3HeadersFrame(GrpcHttp3Headers.trailers(status, new Metadata(), false)))
        .addListener(f -> {
      QuicStreamChannel ch = channel;
      finWithCarrier(ch);
      if (!inputDone()) {
        ch.shutdownInput((int) H3_NO_ERROR);
      }
    });
    finish();
  }

  @Override
  void onMessage(ByteBuffer message) {
    listener.onMessage(message);
  }

  @Override
  void onInputEnd() {
    if (listener == null) {
      finish();
      resetStream(H3_INTERNAL_ERROR);
      return;
    }
    listener.onHalfClose();
  }

  private void startCancelProbe() {
    long period = connection.cancelProbeMillis();
    if (period > 0 && !closeSent && !finished && probe == null) {
      probe = loop.scheduleAtFixedRate(this::probeOnce, period, period, java.util.concurrent.TimeUnit.MILLISECONDS);
    }
  }

  private void probeOnce() {
    if (finished) {
      stopCancelProbe();
      return;
    }
    if (StreamLiveness.available()) {
      if (StreamLiveness.stoppedByPeer(channel)) {
        onWriteFailed(new java.nio.channels.ClosedChannelException());
      }
      return;
    }
    if (closeSent) {
      return;
    }
    // RFC 9114 §7.2.8: a reserved frame type that every HTTP/3 peer ignores.
    channel.writeAndFlush(new DefaultHttp3UnknownFrame(RESERVED_FRAME_TYPE, Unpooled.EMPTY_BUFFER))
        .addListener(f -> {
          if (!f.isSuccess()) {
            onWriteFailed(f.cause());
          }
        });
  }

  private void stopCancelProbe() {
    if (probe != null) {
      probe.cancel(false);
      probe = null;
    }
  }

  @Override
  void onWritable() {
    updateReady();
  }

  private void updateReady() {
    boolean now = !finished && !closeSent && listener != null && channel.isWritable() && unsent.belowLimit();
    boolean was = ready;
    ready = now;
    if (now && !was) {
      listener.onReady();
    }
  }

  /**
   * The client reset the stream (RESET_STREAM, RFC 9000 §19.4) before the call ended: reported as
   * a stream reset unless with H3_NO_ERROR, which aborts nothing (RFC 9114 §4.1).
   */
  @Override
  void onPeerReset(long code) {
    endByClient(code != H3_NO_ERROR, resetStatus(code, "client"));
  }

  /**
   * The client ended the stream abruptly: counted as a reset ({@code countReset}) and, before the
   * server answered, towards the rapid-reset limit; the call ends with {@code status}.
   */
  private void endByClient(boolean countReset, Status status) {
    if (!finished) {
      if (countReset) {
        connection.events().streamReset();
      }
      if (!closeSent) {
        connection.peerResetBeforeAnswer();
      }
    }
    end(status);
  }

  /**
   * The client aborted the stream and quiche collected it before the reset was read: a client's
   * cancellation like {@link #onPeerReset} with {@code H3_REQUEST_CANCELLED} (grpc-java's server
   * reports a client's RST_STREAM as {@code CANCELLED} too), counted as a reset, not as an
   * {@code INTERNAL} failure of the server's.
   */
  @Override
  void onStreamGone(Throwable cause) {
    endByClient(true, Status.CANCELLED.withDescription(
        "client reset the stream (collected before its code was read)").withCause(cause));
  }

  @Override
  void onFailure(Status status) {
    if (!finished) {
      closeWithStatus(status);
    }
  }

  /**
   * Ends the call with {@code status} in trailers, as TCP (grpc-java) does for a server's cancel:
   * the client sees exactly this status, not a reset. Trailers and FIN follow what was written
   * before; the rest of the request is not needed, so STOP_SENDING asks the client to stop it
   * (RFC 9114 §4.1: a server may abort reading once its response is complete, with H3_NO_ERROR).
   * The listener hears {@code onCancel(status)}. Where trailers cannot go (the stream is no longer
   * writable) the stream is reset instead. On the loop.
   */
  private void closeWithStatus(Status status) {
    if (!closeSent && channel.isActive() && listener != null) {
      closeSent = true;
      QuicStreamChannel ch = channel;
      ch.writeAndFlush(new DefaultHttp3HeadersFrame(GrpcHttp3Headers.trailers(status, new Metadata(), headersSent)))
          .addListener(f -> {
            if (f.isSuccess() && ch.isActive()) {
              finWithCarrier(ch);
            }
          });
      if (!inputDone()) {
        ch.shutdownInput((int) H3_NO_ERROR);
      }
    } else {
      resetStream(H3_INTERNAL_ERROR);
    }
    end(status);
  }

  /** Ends the stream abnormally and tells the listener; on the loop. */
  void end(Status status) {
    if (finished) {
      return;
    }
    finish();
    stopCancelProbe();
    ready = false;
    connection.streamClosed(this);
    if (listener != null) {
      listener.onCancel(status);
    }
  }

  @Override
  public void writeHeaders(Metadata md) {
    EventLoops.run(loop, () -> writeHeadersNow(md));
  }

  private void writeHeadersNow(Metadata md) {
    if (finished || headersSent || closeSent) {
      return;
    }
    headersSent = true;
    channel.write(new DefaultHttp3HeadersFrame(GrpcHttp3Headers.responseHeaders(md, encoding)));
  }

  @Override
  public void writeMessage(ByteBuffer message) {
    int size = UnsentBytes.framedSize(message);
    if (!unsent.add(size)) {
      ready = false; // at once, on the writer's thread: the loop may be many writes behind
    }
    EventLoops.run(loop, () -> {
      if (finished || closeSent) {
        unsent.taken(size);
        return;
      }
      if (!headersSent) {
        writeHeadersNow(new Metadata());
      }
      lastWrite = channel.write(new DefaultHttp3DataFrame(MessageFraming.frame(message, compressor)));
      // Counted until quiche has taken the frame: a write waits in the stream channel's queue until
      // a flush, and there past a closed window, without turning the channel unwritable.
      lastWrite.addListener(f -> {
        unsent.taken(size);
        if (!f.isSuccess()) {
          onWriteFailed(f.cause());
        } else {
          updateReady();
        }
      });
      updateReady();
    });
  }

  private void onWriteFailed(Throwable cause) {
    // STOP_SENDING from the client (it cancelled) fails our queued writes: a stream reset too
    // (RFC 9000 §19.5), counted once with the RESET_STREAM that usually comes with it. Writes
    // failed by the connection's close are no reset.
    if (!finished && connection.channel().isOpen()) {
      connection.events().streamReset();
    }
    if (!finished && !closeSent) {
      connection.peerResetBeforeAnswer();
    }
    end(Status.CANCELLED.withDescription("client stopped the stream (" + cause.getClass().getSimpleName() + ")"));
    resetStream(H3_REQUEST_CANCELLED);
  }

  @Override
  public void flush() {
    EventLoops.run(loop, () -> {
      if (!finished) {
        channel.flush();
      }
    });
  }

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be > 0, was " + numMessages);
    }
    EventLoops.run(loop, () -> addRequest(numMessages));
  }

  @Override
  public void close(Status status, Metadata trailers) {
    EventLoops.run(loop, () -> {
      if (finished || closeSent) {
        return;
      }
      closeSent = true;
      ready = false;
      QuicStreamChannel ch = channel;
      ChannelFuture done = ch.writeAndFlush(new DefaultHttp3HeadersFrame(
          GrpcHttp3Headers.trailers(status, trailers == null ? new Metadata() : trailers, headersSent)));
      done.addListener(f -> {
        if (!f.isSuccess()) {
          onWriteFailed(f.cause());
          return;
        }
        finWithCarrier(ch).addListener(g -> {
          if (!inputDone() && ch.isActive()) {
            // RFC 9114 §4.1: the response is complete; the rest of the request is not needed.
            ch.shutdownInput((int) H3_NO_ERROR);
          }
          complete();
        });
      });
    });
  }

  private void complete() {
    if (finished) {
      return;
    }
    finish();
    stopCancelProbe();
    connection.streamClosed(this);
    listener.onComplete();
  }

  @Override
  public void cancel(Status status) {
    EventLoops.run(loop, () -> {
      if (!finished) {
        closeWithStatus(status);
      }
    });
  }

  @Override
  public boolean isReady() {
    return ready;
  }

  @Override
  public void setMessageCompression(String encoding) {
    if (encoding == null) {
      throw new IllegalArgumentException("encoding must not be null");
    }
    io.grpc.Compressor c = MessageFraming.compressor(
        connection.options().get(dev.tern.rpc.spi.TransportOptions.COMPRESSOR_REGISTRY), encoding);
    RequestHeaders h = headers;
    if (h != null && c != null && !h.acceptedMessageEncodings().contains(encoding)) {
      throw new IllegalArgumentException("encoding: the client does not accept '" + encoding + "' (it accepts "
          + h.acceptedMessageEncodings() + ")");
    }
    this.encoding = encoding;
    this.compressor = c;
  }

  long streamId() {
    return channel.streamId();
  }

  @Override
  public boolean receivedAsEarlyData() {
    return earlyData;
  }

  @Override
  public io.grpc.Attributes attributes() {
    return attributes;
  }

  @Override
  public ConnectionInfo connectionInfo() {
    return connection.stats().snapshot(connection.version(), connection.earlyData());
  }
}
