package dev.tern.rpc.inprocess;

import dev.tern.rpc.spi.GrpcMessageFraming;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

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
  private long bufferedBytes;
  private long requested;
  private boolean senderBlocked;
  boolean senderDone;
  boolean endDelivered;

  Pipe(int windowBytes, int maxInboundMessageSize) {
    this.windowBytes = windowBytes;
    this.maxInboundMessageSize = maxInboundMessageSize;
  }

  /** Queues one message; returns the bytes it takes on the wire. */
  int write(ByteBuffer message, String encoding) {
    Wire w;
    if (encoding == null || GrpcMessageFraming.IDENTITY.equals(encoding)) {
      w = new Wire(message, null, GrpcMessageFraming.HEADER_LENGTH + message.remaining());
    } else {
      ByteBuffer framed = GrpcMessageFraming.encode(message,
          CompressorRegistry.getDefaultInstance().lookupCompressor(encoding));
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
   * Takes the next requested message, decoded as the receiver sees it.
   *
   * @throws io.grpc.StatusRuntimeException RESOURCE_EXHAUSTED when it exceeds the receiver's limit
   */
  ByteBuffer take() {
    Wire w = queue.poll();
    requested--;
    bufferedBytes -= w.wireBytes;
    if (w.encoding == null) {
      if (w.bytes.remaining() > maxInboundMessageSize) {
        throw Status.RESOURCE_EXHAUSTED.withDescription("gRPC message of " + w.bytes.remaining()
            + " bytes exceeds the maximum size " + maxInboundMessageSize).asRuntimeException();
      }
      return w.bytes;
    }
    return GrpcMessageFraming.decode(w.bytes, w.encoding, DecompressorRegistry.getDefaultInstance(),
        maxInboundMessageSize);
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
