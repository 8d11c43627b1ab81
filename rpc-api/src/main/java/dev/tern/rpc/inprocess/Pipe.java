package dev.tern.rpc.inprocess;

import dev.tern.rpc.spi.GrpcMessageFraming;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Locale;

/**
 * One direction of an in-process stream: messages written but not yet asked for by the receiver,
 * counted against a window in bytes. Guarded by the owning stream's lock.
 */
final class Pipe {
  /** A message as it crossed the "wire": gRPC-framed when compressed, raw otherwise. */
  private static final class Wire {
    final ByteBuffer bytes;
    final String encoding;
    final int wireBytes;

    Wire(ByteBuffer bytes, String encoding, int wireBytes) {
      this.bytes = bytes;
      this.encoding = encoding;
      this.wireBytes = wireBytes;
    }
  }

  private final ArrayDeque<Wire> queue = new ArrayDeque<>();
  private final int windowBytes;
  private final int maxInboundMessageSize;
  private final boolean toServer;
  private final CompressorRegistry compressors;
  private final DecompressorRegistry decompressors;
  private long bufferedBytes;
  private long requested;
  private boolean senderBlocked;
  boolean senderDone;
  boolean endDelivered;

  /**
   * A pipe towards the server ({@code toServer}) or the client, with the sender's compressors and
   * the receiver's decompressors.
   */
  Pipe(int windowBytes, int maxInboundMessageSize, boolean toServer, CompressorRegistry compressors,
      DecompressorRegistry decompressors) {
    this.windowBytes = windowBytes;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.toServer = toServer;
    this.compressors = compressors;
    this.decompressors = decompressors;
  }

  /** Queues one message; returns the bytes it takes on the wire. */
  int write(ByteBuffer message, String encoding) {
    Wire w;
    if (encoding == null || GrpcMessageFraming.IDENTITY.equals(encoding)) {
      w = new Wire(message, null, GrpcMessageFraming.HEADER_LENGTH + message.remaining());
    } else {
      ByteBuffer framed = GrpcMessageFraming.encode(message, compressors.lookupCompressor(encoding));
      w = new Wire(framed, encoding, framed.remaining());
    }
    queue.add(w);
    bufferedBytes += w.wireBytes;
    if (bufferedBytes >= windowBytes) {
      senderBlocked = true;
    }
    return w.wireBytes;
  }

  /** The sender may write without exceeding the window; remembers a refusal for {@link #takeReady}. */
  boolean isReady() {
    boolean ready = bufferedBytes < windowBytes;
    if (!ready) {
      senderBlocked = true;
    }
    return ready;
  }

  void request(int n) {
    requested = Math.min(Long.MAX_VALUE / 2, requested + n);
  }

  boolean canDeliver() {
    return requested > 0 && !queue.isEmpty();
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  /**
   * Takes the next requested message, decoded as the receiver sees it. Faults fail as grpc-java
   * 1.85 fails them: a message over the receiver's limit on the wire is RESOURCE_EXHAUSTED "gRPC
   * message exceeds maximum size LIMIT: SIZE" (its deframer); one that cannot be decompressed or
   * decompresses beyond the limit fails where grpc-java parses it, on a server as UNKNOWN
   * "Application error processing RPC", on a client as CANCELLED "Failed to read message.".
   *
   * @throws io.grpc.StatusRuntimeException with the status the call ends with
   */
  ByteBuffer take() {
    Wire w = queue.poll();
    requested--;
    bufferedBytes -= w.wireBytes;
    int payload = w.wireBytes - GrpcMessageFraming.HEADER_LENGTH;
    if (payload > maxInboundMessageSize) {
      throw Status.RESOURCE_EXHAUSTED.withDescription(String.format(Locale.US,
          "gRPC message exceeds maximum size %d: %d", maxInboundMessageSize, payload)).asRuntimeException();
    }
    if (w.encoding == null) {
      return w.bytes;
    }
    try {
      return GrpcMessageFraming.decode(w.bytes, w.encoding, decompressors, maxInboundMessageSize);
    } catch (StatusRuntimeException e) {
      Status unreadable = toServer
          ? Status.UNKNOWN.withDescription("Application error processing RPC")
          : Status.CANCELLED.withDescription("Failed to read message.");
      throw unreadable.withCause(e).asRuntimeException();
    }
  }

  /** True once if the sender was refused and the window has room again. */
  boolean takeReady() {
    if (senderBlocked && bufferedBytes < windowBytes) {
      senderBlocked = false;
      return true;
    }
    return false;
  }

  void clear() {
    queue.clear();
    bufferedBytes = 0;
  }
}
