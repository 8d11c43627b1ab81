package dev.tern.transport.udp.rpc;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.GrpcMessageFraming;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.stream.Stream;
import io.grpc.Compressor;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The server's end of one call: a stream the client opened. Its first record must be the
 * request header; the call reaches the transport listener once it is read. Responses go out
 * as records ({@link RpcFraming}); a server's cancel and an unreadable request end the call
 * with trailers carrying the status, so the client sees exactly that status. Public methods
 * hand their work to the loop.
 */
final class UdpServerStream extends RpcStream implements ServerStream {
  private final ServerConnection owner;
  private RequestHeaders headers;
  private ServerStreamListener listener;
  private boolean headersSent;
  private boolean closeSent;
  private boolean halfCloseDelivered;
  private boolean completeWhenFinished;
  /** Whether the stream became a call (the connection counts it until it ends). */
  private boolean started;
  private volatile String encoding = GrpcMessageFraming.IDENTITY;
  private volatile Compressor compressor;
  /**
   * Whether the request came, wholly or in part, in 0-RTT packets (the core stream's flag when
   * the request header was read), which the call layer checks before dispatching.
   */
  private volatile boolean early;

  UdpServerStream(ServerConnection owner, Stream s) {
    super(owner.transport.scratch);
    this.owner = owner;
    bind(owner.connection, s);
    reader = new RecordReader(owner.transport.maxInboundMessageBytes,
        owner.transport.maxHeaderBytes);
  }

  // ---- loop side: the request --------------------------------------------------------------

  @Override
  void onRecord(int type, ByteBuffer record) {
    if (headers == null) {
      if (type != RpcFraming.REQUEST_HEADER) {
        refuse(Status.INTERNAL.withDescription("the stream does not start with a request header"
            + " (record type 0x" + Integer.toHexString(type) + ")"));
        return;
      }
      ((Buffer) record).position(RpcFraming.PREFIX);
      early = stream.receivedInEarlyData();
      RpcFraming.Request r = RpcFraming.parseRequest(record, early);
      onRequest(r);
      return;
    }
    if (!isMessage(type)) {
      throw RpcFraming.malformed("a record of type 0x" + Integer.toHexString(type)
          + " after the request header");
    }
    requested--;
    ((Buffer) record).position(0);
    ByteBuffer message = decode(record, owner.transport.options.get(
        TransportOptions.DECOMPRESSOR_REGISTRY), owner.transport.maxInboundMessageBytes, true);
    listener.onMessage(message);
  }

  private void onRequest(RpcFraming.Request r) {
    int[] ours = owner.transport.versions;
    boolean known = false;
    for (int v : ours) {
      known |= v == r.version;
    }
    if (!known) {
      refuse(Status.FAILED_PRECONDITION.withDescription("the call names Tern protocol version "
          + r.version + ", this server speaks " + dev.tern.rpc.ProtocolVersions.format(ours)));
      return;
    }
    String enc = r.headers.messageEncoding();
    if (!GrpcMessageFraming.IDENTITY.equals(enc) && owner.transport.options
        .get(TransportOptions.DECOMPRESSOR_REGISTRY).lookupDecompressor(enc) == null) {
      refuse(Status.UNIMPLEMENTED.withDescription("Can't find decompressor for " + enc));
      return;
    }
    inboundEncoding = enc;
    if (!owner.acceptsCalls()) {
      owner.transport.events.refused(TransportEvents.SHUTTING_DOWN);
      ended = true;
      resetOutput(RpcFraming.CODE_REFUSED);
      stopInput(RpcFraming.CODE_REFUSED);
      return;
    }
    headers = r.headers;
    stream.setPriority(headers.priority().urgency(), headers.priority().incremental());
    started = true;
    owner.callStarted(this);
    // Ready from the start (isReady() is true while the listener is being made), and said so once
    // the listener exists, as grpc-java's transports do: a server that writes only from its
    // on-ready handler would otherwise never start.
    ready = true;
    listener = owner.transport.listener().streamCreated(this, headers);
    updateReady();
    if (ready) {
      onReady();
    }
  }

  /** Answers a stream that cannot become a call with trailers only; no listener hears of it. */
  private void refuse(Status status) {
    ended = true;
    enqueueUncounted(RpcFraming.trailers(status, new Metadata()));
    finishAfterQueue();
    stopInput(RpcFraming.CODE_NO_ERROR);
  }

  @Override
  void onInputEnd() {
    if (listener == null) {
      ended = true;
      resetOutput(RpcFraming.CODE_INTERNAL);
      return;
    }
    if (!halfCloseDelivered) {
      halfCloseDelivered = true;
      listener.onHalfClose();
    }
  }

  @Override
  void onInboundError(Status status) {
    if (listener == null) {
      refuse(status);
      return;
    }
    closeWithStatus(status);
  }

  @Override
  void onReady() {
    if (listener != null) {
      listener.onReady();
    }
  }

  @Override
  boolean readyNow() {
    return super.readyNow() && listener != null && !closeSent;
  }

  /**
   * The client reset its half (it cancelled) or stopped our response ({@code stopped}: the
   * core has reset our half already, RFC 9000 §3.5).
   */
  void onPeerCancelled(String what, boolean stopped) {
    if (stopped) {
      outputDone = true;
    } else {
      inputDone = true; // the client's half is reset: nothing more to read or to stop
    }
    if (ended) {
      return;
    }
    reportPeerReset(owner.transport.events);
    resetOutput(RpcFraming.CODE_CANCELLED);
    stopInput(RpcFraming.CODE_CANCELLED);
    end(Status.CANCELLED.withDescription(what));
  }

  /** Ends the call as {@link #cancel} does, now; on the loop. */
  void cancelNow(Status status) {
    if (!ended) {
      closeWithStatus(status);
    }
  }

  /** The connection ended under the call. */
  void onConnectionLost(Status status) {
    if (!ended) {
      end(status);
    }
  }

  /**
   * Ends the call with {@code status} in trailers after what was already written, as TCP
   * (grpc-java) ends a server's cancel; the rest of the request is not needed (STOP_SENDING,
   * RFC 9000 §3.5). The listener hears {@code onCancel(status)}. Where trailers can no longer
   * go, the stream is reset.
   */
  private void closeWithStatus(Status status) {
    if (!closeSent && !outputDone) {
      closeSent = true;
      dropQueued();
      enqueueUncounted(RpcFraming.trailers(status, new Metadata()));
      finishAfterQueue();
    } else if (!outputDone) {
      resetOutput(RpcFraming.CODE_INTERNAL);
    }
    stopInput(RpcFraming.CODE_NO_ERROR);
    end(status);
  }

  private void end(Status status) {
    if (ended) {
      return;
    }
    ended = true;
    ready = false;
    if (started) {
      owner.callEnded(this);
      listener.onCancel(status);
    }
  }

  @Override
  void onOutputFinished() {
    if (completeWhenFinished && !ended && started) {
      ended = true;
      ready = false;
      owner.callEnded(this);
      listener.onComplete();
      discardInput();
    }
  }

  // ---- the application's side ---------------------------------------------------------------

  private void run(Runnable task) {
    owner.transport.run(task);
  }

  @Override
  public void writeHeaders(Metadata md) {
    run(() -> writeHeadersNow(md));
  }

  private void writeHeadersNow(Metadata md) {
    if (ended || headersSent || closeSent) {
      return;
    }
    headersSent = true;
    enqueueUncounted(RpcFraming.responseHeaders(md, encoding));
  }

  @Override
  public void writeMessage(ByteBuffer message) {
    int size = GrpcMessageFraming.HEADER_LENGTH + message.remaining();
    countWrite(size);
    owner.transport.runOr(() -> {
      if (ended || closeSent) {
        queued.addAndGet(-size);
        return;
      }
      if (!headersSent) {
        writeHeadersNow(new Metadata());
      }
      ByteBuffer framed = GrpcMessageFraming.encode(message, compressor);
      queued.addAndGet(framed.remaining() - size);
      enqueue(framed);
    }, () -> queued.addAndGet(-size));
  }

  @Override
  public void flush() {
    // Every write goes to the protocol's send buffer at once; its packets leave each loop turn.
  }

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be > 0, was " + numMessages);
    }
    run(() -> {
      if (!ended) {
        requested = (int) Math.min(Integer.MAX_VALUE, (long) requested + numMessages);
        pull();
      }
    });
  }

  @Override
  public void close(Status status, Metadata trailers) {
    run(() -> {
      if (ended || closeSent) {
        return;
      }
      closeSent = true;
      ready = false;
      enqueueUncounted(RpcFraming.trailers(status, trailers == null ? new Metadata() : trailers));
      completeWhenFinished = true;
      // RFC 9000 §3.5: the response is complete, the rest of the request is not needed.
      if (!halfCloseDelivered) {
        stopInput(RpcFraming.CODE_NO_ERROR);
      }
      finishAfterQueue();
    });
  }

  @Override
  public void cancel(Status status) {
    run(() -> cancelNow(status));
  }

  @Override
  public boolean isReady() {
    return ready;
  }

  @Override
  public void setMessageCompression(String name) {
    if (name == null) {
      throw new IllegalArgumentException("encoding must not be null");
    }
    Compressor c = null;
    if (!GrpcMessageFraming.IDENTITY.equals(name)) {
      c = owner.transport.options.get(TransportOptions.COMPRESSOR_REGISTRY).lookupCompressor(name);
      if (c == null) {
        throw new IllegalArgumentException("encoding: no compressor named '" + name
            + "' in the server's compressor registry");
      }
      RequestHeaders h = headers;
      if (h != null && !h.acceptedMessageEncodings().contains(name)) {
        throw new IllegalArgumentException("encoding: the client does not accept '" + name
            + "' (it accepts " + h.acceptedMessageEncodings() + ")");
      }
    }
    this.encoding = name;
    this.compressor = c;
  }

  @Override
  public boolean receivedAsEarlyData() {
    return early;
  }

  @Override
  public io.grpc.Attributes attributes() {
    return owner.attributes();
  }

  @Override
  public ConnectionInfo connectionInfo() {
    return owner.info();
  }
}
