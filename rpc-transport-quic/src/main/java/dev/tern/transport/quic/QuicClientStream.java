package dev.tern.transport.quic;

import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Metadata;
import io.grpc.Status;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamPriority;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * One call on a QUIC connection: an HTTP/3 request stream. Created pending; opened when the
 * connection can take it (at once, in 0-RTT early data if the call allows it, or after the
 * handshake). All state lives on the connection's event loop; public methods hop onto it.
 */
final class QuicClientStream extends StreamHandler implements ClientStream {
  private final QuicClientTransport transport;
  private final EventLoop loop;
  private final RequestHeaders headers;
  private final ClientStreamListener listener;
  private final int maxInboundMessageBytes;
  private final ArrayDeque<ByteBuffer> pendingWrites = new ArrayDeque<>();
  /**
   * Request bytes written and not yet handed to quiche (those in {@link #pendingWrites} included);
   * {@link #isReady()} waits for them.
   */
  private final UnsentBytes unsent = new UnsentBytes();
  private boolean pendingHalfClose;
  private boolean halfClosed;
  private boolean opening;
  private long openedAtNanos;
  private boolean responseHeadersSeen;
  private Status trailerStatus;
  private Metadata trailers;
  private ChannelFuture lastWrite;
  /** The request messages' compressor (null: identity), looked up at the first write. */
  private io.grpc.Compressor compressor;
  private boolean compressorLookedUp;
  private volatile boolean ready;

  QuicClientStream(QuicClientTransport transport, EventLoop loop, RequestHeaders headers,
      ClientStreamListener listener, int maxInboundMessageBytes, boolean connectionUp) {
    // On a connection that is up, a new stream has the peer's whole initial stream window.
    this.ready = connectionUp;
    this.transport = transport;
    this.loop = loop;
    this.headers = headers;
    this.listener = listener;
    this.maxInboundMessageBytes = maxInboundMessageBytes;
  }

  RequestHeaders headers() {
    return headers;
  }

  boolean isPending() {
    return channel == null && !opening && !finished;
  }

  /** When the call's stream was opened ({@link System#nanoTime}); 0 while it was not. */
  long openedAtNanos() {
    return openedAtNanos;
  }

  /** True if the call never got a QUIC stream (it may still be queued on the transport). */
  boolean neverOpened() {
    return channel == null && !opening;
  }

  /** Opens the HTTP/3 request stream; on the event loop. */
  void open(QuicChannel quic, String authority) {
    opening = true;
    openedAtNanos = System.nanoTime();
    Http3.newRequestStreamBootstrap(quic, this).option(ChannelOption.AUTO_READ, false).create()
        .addListener(f -> {
          if (!f.isSuccess()) {
            opening = false;
            if (finished || transport.streamRefused(this, f.cause())) {
              return; // ended meanwhile, or waits for stream credit again
            }
            fail(Status.UNAVAILABLE.withDescription("cannot open QUIC stream: " + f.cause()).withCause(f.cause()));
            return;
          }
          QuicStreamChannel ch = (QuicStreamChannel) f.getNow();
          if (finished) {
            ch.shutdown((int) H3_REQUEST_CANCELLED).addListener(x -> ch.close());
            return;
          }
          channel = ch;
          deframer = new MessageDeframer(ch.alloc(), maxInboundMessageBytes, false,
              transport.options().get(dev.tern.rpc.spi.TransportOptions.DECOMPRESSOR_REGISTRY));
          if (!dev.tern.rpc.Priority.DEFAULT.equals(headers.priority())) {
            ch.updatePriority(new QuicStreamPriority(headers.priority().urgency(), headers.priority().incremental()));
          }
          Http3Headers h = GrpcHttp3Headers.request(headers, authority);
          ch.write(new DefaultHttp3HeadersFrame(h));
          transport.sent();
          while (!pendingWrites.isEmpty() && !finished) {
            writeNow(pendingWrites.poll());
          }
          if (finished) {
            return;
          }
          if (pendingHalfClose) {
            halfCloseNow();
          }
          ch.flush();
          updateReady();
          maybeRead();
        });
  }

  @Override
  public void writeMessage(ByteBuffer message) {
    int size = UnsentBytes.framedSize(message);
    if (!unsent.add(size)) {
      ready = false; // at once, on the writer's thread: the loop may be many writes behind
    }
    EventLoops.run(loop, () -> {
      if (finished || halfClosed || pendingHalfClose) {
        unsent.taken(size);
        return;
      }
      if (channel == null) {
        pendingWrites.add(message); // stays counted until written
      } else {
        writeNow(message);
      }
    });
  }

  private void writeNow(ByteBuffer message) {
    int size = UnsentBytes.framedSize(message);
    if (!compressorLookedUp) {
      compressorLookedUp = true;
      try {
        compressor = MessageFraming.compressor(
            transport.options().get(dev.tern.rpc.spi.TransportOptions.COMPRESSOR_REGISTRY), headers.messageEncoding());
      } catch (IllegalArgumentException e) {
        fail(Status.INTERNAL.withDescription("unable to find a compressor named '" + headers.messageEncoding()
            + "' in the channel's compressor registry"));
        unsent.taken(size);
        return;
      }
    }
    lastWrite = channel.write(new DefaultHttp3DataFrame(MessageFraming.frame(message, compressor)));
    // Counted until quiche has taken the frame: a write waits in the stream channel's queue until
    // a flush, and there past a closed window, without turning the channel unwritable.
    lastWrite.addListener(f -> {
      unsent.taken(size);
      updateReady();
    });
    transport.sent();
    updateReady();
  }

  @Override
  public void flush() {
    EventLoops.run(loop, () -> {
      if (channel != null && !finished) {
        channel.flush();
      }
    });
  }

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be > 0, was " + numMessages);
    }
    EventLoops.run(loop, () -> {
      if (!finished) {
        addRequest(numMessages);
      }
    });
  }

  @Override
  public void halfClose() {
    EventLoops.run(loop, () -> {
      if (finished || halfClosed) {
        return;
      }
      if (channel == null) {
        pendingHalfClose = true;
      } else {
        halfCloseNow();
      }
    });
  }

  private void halfCloseNow() {
    halfClosed = true;
    transport.sent();
    QuicStreamChannel ch = channel;
    ch.flush();
    if (lastWrite == null || lastWrite.isDone()) {
      finWithCarrier(ch);
    } else {
      lastWrite.addListener(f -> finWithCarrier(ch));
    }
  }

  @Override
  public void cancel(Status status) {
    EventLoops.run(loop, () -> {
      if (finished) {
        return;
      }
      // RFC 9114 §4.1.1: a client abandoning a request resets it with H3_REQUEST_CANCELLED.
      resetStream(H3_REQUEST_CANCELLED);
      transport.sent();
      close(status, new Metadata());
    });
  }

  @Override
  public boolean isReady() {
    return ready;
  }

  private void updateReady() {
    boolean now = !finished && channel != null && channel.isWritable() && !halfClosed && unsent.belowLimit();
    if (channel == null && !finished && !halfClosed) {
      return; // not opened yet: keeps the initial answer
    }
    boolean was = ready;
    ready = now;
    if (now && !was) {
      listener.onReady();
    }
  }

  @Override
  void onWritable() {
    updateReady();
  }

  @Override
  void onHeadersFrame(Http3HeadersFrame frame) {
    Http3Headers h = frame.headers();
    if (!responseHeadersSeen) {
      responseHeadersSeen = true;
      CharSequence httpStatus = h.status();
      if (httpStatus == null || !"200".contentEquals(httpStatus)) {
        Status s = h.get("grpc-status") != null ? GrpcHttp3Headers.statusOf(h)
            : GrpcHttp3Headers.httpStatusToGrpc(httpStatus);
        onFailure(s);
        return;
      }
      if (h.get("grpc-status") != null) {
        // Trailers-only response.
        trailerStatus = GrpcHttp3Headers.statusOf(h);
        trailers = GrpcHttp3Headers.readMetadata(h);
        return;
      }
      CharSequence encoding = h.get("grpc-encoding");
      deframer.encoding(encoding == null ? null : encoding.toString());
      listener.onHeaders(GrpcHttp3Headers.readMetadata(h));
      return;
    }
    if (trailerStatus != null) {
      onFailure(Status.INTERNAL.withDescription("HEADERS after the response trailers"));
      return;
    }
    trailerStatus = GrpcHttp3Headers.statusOf(h);
    trailers = GrpcHttp3Headers.readMetadata(h);
  }

  @Override
  boolean inputEnded() {
    return trailerStatus != null || inputDone();
  }

  @Override
  void onMessage(ByteBuffer message) {
    listener.onMessage(message);
  }

  @Override
  void onInputEnd() {
    if (trailerStatus == null) {
      onFailure(Status.INTERNAL.withDescription("response stream ended without trailers"));
      return;
    }
    QuicStreamChannel ch = channel;
    if (!halfClosed && ch != null && ch.isActive()) {
      // The server answered before our request ended; stop sending the rest (RFC 9114 §4.1).
      ch.shutdownOutput((int) H3_NO_ERROR);
    }
    close(trailerStatus, trailers);
  }

  /**
   * The server reset the stream (RESET_STREAM, RFC 9000 §19.4): reported as a stream reset unless
   * with H3_NO_ERROR, which aborts nothing (RFC 9114 §4.1).
   */
  @Override
  void onPeerReset(long code) {
    if (code != H3_NO_ERROR) {
      transport.events().streamReset();
    }
    Status status = resetStatus(code, "server");
    if (code == H3_REQUEST_REJECTED && !responseHeadersSeen) {
      // RFC 9114 §4.1.1: the server did not process the request; the call may be sent again.
      refuse(status);
      return;
    }
    io.grpc.Deadline deadline = headers.deadline();
    if (status.getCode() == Status.Code.CANCELLED && deadline != null && deadline.isExpired()) {
      // The server cancels at the deadline it was sent; the client's own deadline has passed too.
      status = Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded; " + status.getDescription());
    }
    close(status, new Metadata());
  }

  /** A stream cut by the connection's end says why the connection ended (idle timeout, refused sends). */
  @Override
  Status closedBeforeEnd() {
    Status lost = transport.endStatus();
    return lost == null ? super.closedBeforeEnd()
        : lost.withDescription("QUIC stream closed before the call ended: " + lost.getDescription());
  }

  @Override
  void onFailure(Status status) {
    if (finished) {
      return;
    }
    resetStream(status.getCode() == Status.Code.CANCELLED ? H3_REQUEST_CANCELLED : H3_INTERNAL_ERROR);
    close(status, new Metadata());
  }

  /** Ends the call with a transport-made status; on the event loop. */
  void fail(Status status) {
    if (!finished) {
      resetStream(H3_REQUEST_CANCELLED);
      close(status, new Metadata());
    }
  }

  /**
   * The server has not processed this call (RFC 9114 §5.2, §4.1.1), or it was never sent: it ends
   * with {@code status} as a refusal (as never sent if it never had a QUIC stream), which lets the
   * call layer send it again on another connection; on the event loop.
   */
  void refuse(Status status) {
    if (finished) {
      return;
    }
    if (responseHeadersSeen) {
      fail(status);
      return;
    }
    boolean sent = !neverOpened();
    resetStream(H3_REQUEST_CANCELLED);
    finish();
    ready = false;
    pendingWrites.clear();
    transport.streamClosed(this);
    if (sent) {
      listener.onRefused(status);
    } else {
      listener.onNotSent(status); // it never had a QUIC stream: nothing of it left this client
    }
  }

  /** The stream's QUIC id, or -1 before it is open. */
  long streamIdOrUnopened() {
    QuicStreamChannel ch = channel;
    return ch == null ? -1 : ch.streamId();
  }

  private void close(Status status, Metadata md) {
    if (finished) {
      return;
    }
    finish();
    ready = false;
    pendingWrites.clear();
    transport.streamClosed(this);
    listener.onClose(status, md);
  }
}
