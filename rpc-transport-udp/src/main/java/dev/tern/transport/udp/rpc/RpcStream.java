package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.GrpcMessageFraming;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.stream.Stream;
import io.grpc.DecompressorRegistry;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What both ends of an RPC stream share: the records waiting for send-buffer room, readiness
 * (writes wait while more than {@link #READY_BYTES} are not yet taken by the protocol's send
 * buffer, itself one flow-control window), and the read loop that takes from the protocol only
 * the bytes the current record needs and holds a message back until it is requested (so the
 * peer's window closes when the application stops asking). State is confined to the endpoint's
 * loop thread except {@link #queued} and {@link #ready}, which writers update from any thread.
 */
abstract class RpcStream {
  /** Bytes written but not yet in the protocol's send buffer past which isReady is false. */
  static final long READY_BYTES = 32 * 1024;

  Connection connection;
  final ByteBuffer scratch;
  Stream stream;
  long id = -1;
  RecordReader reader;
  private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
  /** Bytes written by the application and not yet taken by the protocol. */
  final AtomicLong queued = new AtomicLong();
  volatile boolean ready;
  /** Messages the application asked for and has not been given. */
  int requested;
  /** The record stream ended (FIN read, or the core dropped the stream). */
  boolean inputDone;
  /** Our sending half is over: finished after the queue, or reset. */
  boolean outputDone;
  private boolean finishAfterQueue;
  /** The call is over for the application: nothing more is delivered. */
  boolean ended;
  String inboundEncoding = GrpcMessageFraming.IDENTITY;

  RpcStream(ByteBuffer scratch) {
    this.scratch = scratch;
  }

  /** Binds the protocol stream (the client's once opened, the server's at once). */
  final void bind(Connection c, Stream s) {
    this.connection = c;
    this.stream = s;
    this.id = s.id();
  }

  /** Queues a record counted in {@link #queued} by the writer, and sends what fits. */
  final void enqueue(ByteBuffer record) {
    out.add(record);
    drain();
  }

  /** Queues a record (uncounted) before every other: the request header, once the stream opens. */
  final void enqueueFirst(ByteBuffer record) {
    queued.addAndGet(record.remaining());
    out.addFirst(record);
    drain();
  }

  /** Queues a record the application did not count (headers, trailers). */
  final void enqueueUncounted(ByteBuffer record) {
    queued.addAndGet(record.remaining());
    enqueue(record);
  }

  /** Ends the sending half once every queued record is in the send buffer. */
  final void finishAfterQueue() {
    finishAfterQueue = true;
    drain();
  }

  /**
   * Drops queued records not begun (a record partly in the send buffer is kept whole, or the
   * framing would break).
   */
  final void dropQueued() {
    ByteBuffer head = out.peek();
    boolean keepHead = head != null && head.position() > 0;
    long kept = keepHead ? head.remaining() : 0;
    out.clear();
    if (keepHead) {
      out.add(head);
    }
    queued.set(kept);
  }

  /** Moves queued records into the protocol's send buffer as far as it takes them. */
  final void drain() {
    if (stream == null || outputDone) {
      return;
    }
    ByteBuffer b;
    while ((b = out.peek()) != null) {
      int taken = connection.write(stream, b);
      queued.addAndGet(-taken);
      if (b.hasRemaining()) {
        break;
      }
      out.poll();
    }
    if (out.isEmpty() && finishAfterQueue) {
      outputDone = true;
      connection.finish(stream);
      onOutputFinished();
    }
    updateReady();
  }

  /** Resets our sending half (unsent data dropped) if it is not over. */
  final void resetOutput(long code) {
    out.clear();
    queued.set(0);
    if (!outputDone && stream != null) {
      outputDone = true;
      connection.resetStream(stream, code);
    }
    updateReady();
  }

  /** Asks the peer to stop sending, if our receiving half is not over. */
  final void stopInput(long code) {
    if (!inputDone && stream != null) {
      connection.stopSending(stream, code);
    }
  }

  /** Whether the application could write without waiting, given the state now. */
  boolean readyNow() {
    return !ended && !outputDone && !finishAfterQueue && queued.get() < READY_BYTES;
  }

  /** Recomputes {@link #ready}, telling the application when it turns true. */
  final void updateReady() {
    boolean now = readyNow();
    boolean was = ready;
    ready = now;
    if (now && !was) {
      onReady();
    }
  }

  /** Counts a message the application wrote (any thread), clearing readiness past the limit. */
  final void countWrite(int bytes) {
    if (queued.addAndGet(bytes) >= READY_BYTES) {
      ready = false;
    }
  }

  private boolean pulling;
  private boolean endReported;
  private boolean peerResetReported;

  /**
   * Reports to {@code events} that the peer reset this stream (RESET_STREAM or STOP_SENDING)
   * before it ended; once per stream, however many of the two frames come.
   */
  final void reportPeerReset(TransportEvents events) {
    if (!peerResetReported) {
      peerResetReported = true;
      events.streamReset();
    }
  }

  /**
   * Reads and handles records while the application wants them: a message is read once
   * requested, header and trailer records whenever they come; the end of the peer's half is
   * reported once every record before it was handled.
   */
  final void pull() {
    if (pulling) {
      return; // a callback inside the read loop: the outer loop picks the change up
    }
    pulling = true;
    try {
      pullLoop();
    } finally {
      pulling = false;
    }
  }

  private void pullLoop() {
    while (!ended && reader != null) {
      if (reader.hasRecord()) {
        if (isMessage(reader.type()) && requested <= 0) {
          return;
        }
        ByteBuffer record = reader.take();
        try {
          onRecord(record.get(0) & 0xff, record);
        } catch (StatusRuntimeException e) {
          onInboundError(e.getStatus());
          return;
        }
        continue;
      }
      if (isMessageBody() && requested <= 0) {
        return; // a message nobody asked for stays in the protocol's window
      }
      if (stream == null || inputDone) {
        reportEnd();
        return;
      }
      ((Buffer) scratch).clear();
      ((Buffer) scratch).limit(Math.min(scratch.capacity(), reader.needed()));
      int n = connection.read(stream, scratch);
      if (n <= 0) {
        if (stream != null && stream.receive().isFinished()) {
          inputDone = true;
          reportEnd();
        } else if (stream == null) {
          reportEnd();
        }
        return;
      }
      ((Buffer) scratch).flip();
      try {
        reader.feed(scratch);
      } catch (StatusRuntimeException e) {
        onInboundError(e.getStatus());
        return;
      }
    }
    if (ended) {
      discardInput();
    }
  }

  private boolean isMessageBody() {
    return reader.prefixIn() && !reader.hasRecord() && isMessage(reader.type());
  }

  /** Reads and drops what the peer still sends after the call ended (so the stream can close). */
  final void discardInput() {
    if (stream == null || inputDone) {
      return;
    }
    int n;
    do {
      ((Buffer) scratch).clear();
      n = connection.read(stream, scratch);
    } while (n > 0 && stream != null);
    if (stream != null && (stream.receive().isFinished() || stream.receive().isReset())) {
      inputDone = true;
    }
  }

  private void reportEnd() {
    if (endReported || ended) {
      return;
    }
    endReported = true;
    inputDone = true;
    if (!reader.atBoundary()) {
      onInboundError(Status.INTERNAL.withDescription("the stream ended inside a record ("
          + reader.needed() + " bytes missing)"));
      return;
    }
    onInputEnd();
  }

  /** The core dropped the stream (both halves over); it must not be used any more. */
  final void onCoreClosed() {
    inputDone = true;
    outputDone = true;
    stream = null;
    pull();
  }

  static boolean isMessage(int type) {
    return type == RpcFraming.MESSAGE || type == RpcFraming.MESSAGE_COMPRESSED;
  }

  /**
   * Decodes a message record as grpc-java's call layer sees it: one that cannot be decompressed
   * or decompresses beyond the limit fails as grpc-java fails it (a server: UNKNOWN
   * "Application error processing RPC", a client: CANCELLED "Failed to read message.").
   */
  final ByteBuffer decode(ByteBuffer record, DecompressorRegistry registry, int maxBytes,
      boolean server) {
    if ((record.get(0) & 0xff) == RpcFraming.MESSAGE) {
      return GrpcMessageFraming.decode(record, inboundEncoding, registry, maxBytes);
    }
    if (GrpcMessageFraming.IDENTITY.equals(inboundEncoding)
        || registry.lookupDecompressor(inboundEncoding) == null) {
      throw Status.INTERNAL.withDescription("Can't decode compressed gRPC message as compression"
          + " not configured (encoding " + inboundEncoding + ")").asRuntimeException();
    }
    try {
      return GrpcMessageFraming.decode(record, inboundEncoding, registry, maxBytes);
    } catch (StatusRuntimeException e) {
      Status unreadable = server
          ? Status.UNKNOWN.withDescription("Application error processing RPC")
          : Status.CANCELLED.withDescription("Failed to read message.");
      throw unreadable.withCause(e).asRuntimeException();
    }
  }

  /** One whole record (prefix included, at position 0) of {@code type}. */
  abstract void onRecord(int type, ByteBuffer record);

  /** The peer's half ended at a record boundary. */
  abstract void onInputEnd();

  /** A record could not be read or was out of place: the call ends with {@code status}. */
  abstract void onInboundError(Status status);

  /** The sending half was finished (after the last queued record). */
  void onOutputFinished() {}

  /** {@link #ready} turned true. */
  abstract void onReady();
}
