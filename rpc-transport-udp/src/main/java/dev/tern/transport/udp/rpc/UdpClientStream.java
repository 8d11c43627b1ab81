package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.GrpcMessageFraming;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.stream.Stream;
import io.grpc.Compressor;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The client's end of one call: a stream it opens once the connection is up and has a stream
 * slot. The request header record goes first, then the framed messages, then FIN; the response
 * is read as records ({@link RpcFraming}). Public methods hand their work to the loop.
 */
final class UdpClientStream extends RpcStream implements ClientStream {
  private final UdpClientTransport transport;
  final RequestHeaders headers;
  private final ClientStreamListener listener;
  private boolean halfClosed;
  private boolean headersSeen;
  /** Whether the listener was given response headers or a message. */
  private boolean delivered;
  /** When the stream opened ({@link System#nanoTime}); 0 before. */
  private long openedAtNs;
  private Compressor compressor;
  private boolean compressorLookedUp;

  UdpClientStream(UdpClientTransport transport, RequestHeaders headers,
      ClientStreamListener listener, boolean connectionUp) {
    super(transport.scratch);
    this.transport = transport;
    this.headers = headers;
    this.listener = listener;
    this.ready = connectionUp;
  }

  /** Whether the call may go in early data (0-RTT): the call layer's decision. */
  boolean earlyDataAllowed() {
    return headers.earlyDataAllowed();
  }

  /** Binds the opened protocol stream and sends the header, then what was written meanwhile. */
  void open(Stream s, int version) {
    openedAtNs = System.nanoTime();
    bind(transport.connection(), s);
    reader = new RecordReader(transport.maxInboundMessageBytes, transport.maxHeaderBytes);
    s.setPriority(headers.priority().urgency(), headers.priority().incremental());
    enqueueFirst(RpcFraming.requestHeader(headers, version, transport.authority));
    pull();
  }

  @Override
  public void writeMessage(ByteBuffer message) {
    int size = GrpcMessageFraming.HEADER_LENGTH + message.remaining();
    countWrite(size);
    if (!transport.run(() -> {
      if (ended || halfClosed) {
        queued.addAndGet(-size);
        return;
      }
      if (!compressorLookedUp) {
        compressorLookedUp = true;
        String enc = headers.messageEncoding();
        if (!GrpcMessageFraming.IDENTITY.equals(enc)) {
          compressor = transport.options.get(TransportOptions.COMPRESSOR_REGISTRY)
              .lookupCompressor(enc);
          if (compressor == null) {
            queued.addAndGet(-size);
            fail(Status.INTERNAL.withDescription("unable to find a compressor named '" + enc
                + "' in the channel's compressor registry"), RpcFraming.CODE_CANCELLED);
            return;
          }
        }
      }
      ByteBuffer framed = GrpcMessageFraming.encode(message, compressor);
      queued.addAndGet(framed.remaining() - size);
      enqueue(framed);
    })) {
      queued.addAndGet(-size);
    }
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
    transport.run(() -> {
      if (!ended) {
        requested = (int) Math.min(Integer.MAX_VALUE, (long) requested + numMessages);
        pull();
      }
    });
  }

  @Override
  public void halfClose() {
    transport.run(() -> {
      if (ended || halfClosed) {
        return;
      }
      halfClosed = true;
      finishAfterQueue();
      transport.requestComplete();
    });
  }

  @Override
  public void cancel(Status status) {
    transport.run(() -> fail(status, RpcFraming.CODE_CANCELLED));
  }

  @Override
  public boolean isReady() {
    return ready;
  }

  @Override
  boolean readyNow() {
    return super.readyNow() && !halfClosed;
  }

  // ---- loop side --------------------------------------------------------------------------

  @Override
  void onRecord(int type, ByteBuffer record) {
    ((Buffer) record).position(RpcFraming.PREFIX);
    switch (type) {
      case RpcFraming.RESPONSE_HEADERS:
        if (headersSeen) {
          throw RpcFraming.malformed("a second response headers record");
        }
        headersSeen = true;
        RpcFraming.Response r = RpcFraming.parseResponse(record);
        inboundEncoding = r.encoding;
        delivered = true;
        listener.onHeaders(r.metadata);
        return;
      case RpcFraming.TRAILERS:
        RpcFraming.Trailers t = RpcFraming.parseTrailers(record);
        // The server has answered: the rest of our request is not needed (it stops it too).
        if (!outputDone) {
          resetOutput(RpcFraming.CODE_NO_ERROR);
        }
        end(t.status, t.metadata);
        discardInput();
        return;
      case RpcFraming.MESSAGE:
      case RpcFraming.MESSAGE_COMPRESSED:
        requested--;
        ((Buffer) record).position(0);
        ByteBuffer message = decode(record, transport.options.get(
            TransportOptions.DECOMPRESSOR_REGISTRY), transport.maxInboundMessageBytes, false);
        delivered = true;
        listener.onMessage(message);
        return;
      default:
        throw RpcFraming.malformed("a record of type 0x" + Integer.toHexString(type)
            + " on a response stream");
    }
  }

  @Override
  void onInputEnd() {
    fail(Status.INTERNAL.withDescription("the response stream ended without trailers"),
        RpcFraming.CODE_INTERNAL);
  }

  @Override
  void onInboundError(Status status) {
    fail(status, status.getCode() == Status.Code.CANCELLED ? RpcFraming.CODE_CANCELLED
        : RpcFraming.CODE_INTERNAL);
  }

  @Override
  void onReady() {
    listener.onReady();
  }

  /** The server reset its half: the call ends with the status its code names. */
  void onPeerReset(long code) {
    // The server's half is over: nothing more to read, and no STOP_SENDING for it (RFC 9000
    // §3.5), so that nothing here changes the stream inside the core's RESET_STREAM handling.
    inputDone = true;
    if (ended) {
      return;
    }
    reportPeerReset(transport.events);
    Status status = UdpClientTransport.resetStatus(code, "server");
    if (code == RpcFraming.CODE_REFUSED && !delivered) {
      // The server did not process the call (docs/protocol.md §10.5): the call layer may send it
      // again on another connection. The server refuses calls only while it drains the
      // connection, so the transport stops taking calls first, and the replay goes elsewhere.
      transport.drainedByServer(status);
      resetOutput(RpcFraming.CODE_CANCELLED);
      stopInput(RpcFraming.CODE_CANCELLED);
      ended = true;
      dropQueued();
      ready = false;
      transport.callEnded(this);
      listener.onRefused(status);
      return;
    }
    Deadline deadline = headers.deadline();
    if (status.getCode() == Status.Code.CANCELLED && deadline != null && deadline.isExpired()) {
      status = Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded; "
          + status.getDescription());
    }
    fail(status, RpcFraming.CODE_CANCELLED);
  }

  /**
   * The server stopped our request (it answers without the rest); its half still comes. With an
   * error code (not 0x0, "the response is complete", docs/protocol.md §10.5) before the call
   * ended, it counts as a stream the server reset.
   */
  void onPeerStopSending(long code) {
    if (code != RpcFraming.CODE_NO_ERROR && !ended) {
      reportPeerReset(transport.events);
    }
    halfClosed = true;
    outputDone = true; // the core has reset the half already (RFC 9000 §3.5)
    resetOutput(RpcFraming.CODE_NO_ERROR);
  }

  /**
   * Ends the call with a transport-made status: our half is reset and the server asked to
   * stop (RFC 9000 §3.5), the listener told. Idempotent.
   */
  void fail(Status status, long code) {
    if (ended) {
      return;
    }
    if (stream == null) {
      refuseUnsent(status);
      return;
    }
    resetOutput(code);
    stopInput(code);
    end(status, new Metadata());
  }

  /** When the call's stream opened ({@link System#nanoTime}), 0 if it has not. */
  long openedAtNs() {
    return openedAtNs;
  }

  /**
   * Ends the call on a connection that is gone (the server drained it, docs/protocol.md §10.7, or
   * no longer has it): one the server cannot have processed ({@code unprocessed}, and it has heard
   * nothing of the server) as refused with {@code refusal}, so that the call layer sends it again
   * on another connection; any other (it was processed, or may have been) fails with {@code status}.
   */
  void failOrRefuse(Status status, boolean unprocessed, Status refusal) {
    if (ended) {
      return;
    }
    if (delivered || !unprocessed) {
      fail(status, RpcFraming.CODE_CANCELLED);
      return;
    }
    resetOutput(RpcFraming.CODE_CANCELLED);
    stopInput(RpcFraming.CODE_CANCELLED);
    refuseUnsent(refusal);
  }

  /**
   * Ends a call the server cannot have processed, which lets the call layer send it again on
   * another connection: as never sent when it never had a stream, else as refused unprocessed.
   */
  void refuseUnsent(Status status) {
    if (ended) {
      return;
    }
    ended = true;
    dropQueued();
    ready = false;
    transport.callEnded(this);
    if (stream == null) {
      listener.onNotSent(status); // nothing of it left this client
    } else {
      listener.onRefused(status); // sent, and the server did not process it
    }
  }

  private void end(Status status, Metadata trailers) {
    if (ended) {
      return;
    }
    ended = true;
    dropQueued();
    ready = false;
    transport.callEnded(this);
    listener.onClose(status, trailers);
  }
}
