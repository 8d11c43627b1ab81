package dev.tern.transport.quic;

import dev.tern.rpc.spi.GrpcMessageFraming;
import io.grpc.DecompressorRegistry;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Collects the bytes of a stream's DATA frames and cuts them into whole gRPC messages. Owned by one
 * stream and used on its event loop only. {@link #release()} frees what is still buffered.
 */
final class MessageDeframer {
  private final ByteBufAllocator alloc;
  private final int maxMessageBytes;
  private final boolean server;
  private final DecompressorRegistry decompressors;
  private String encoding = "identity";
  private ByteBuf cumulation;

  /**
   * A deframer for one stream of a server ({@code server}: its requests) or a client (its
   * responses), decompressing with {@code decompressors}.
   */
  MessageDeframer(ByteBufAllocator alloc, int maxMessageBytes, boolean server, DecompressorRegistry decompressors) {
    this.alloc = alloc;
    this.maxMessageBytes = maxMessageBytes;
    this.server = server;
    this.decompressors = decompressors;
  }

  /** The encoding of compressed messages ({@code grpc-encoding} of the peer). */
  void encoding(String encoding) {
    this.encoding = encoding == null ? "identity" : encoding;
  }

  /** Appends {@code data}; ownership of {@code data} passes to this deframer. */
  void add(ByteBuf data) {
    try {
      if (cumulation == null) {
        cumulation = alloc.buffer(Math.max(256, data.readableBytes()));
      } else if (cumulation.readerIndex() > cumulation.capacity() / 2) {
        cumulation.discardReadBytes();
      }
      cumulation.writeBytes(data);
    } finally {
      data.release();
    }
  }

  /** Bytes buffered and not yet returned as a message. */
  int bufferedBytes() {
    return cumulation == null ? 0 : cumulation.readableBytes();
  }

  /** Whether a whole message is buffered. */
  boolean hasMessage() {
    if (bufferedBytes() < MessageFraming.HEADER_BYTES) {
      return false;
    }
    long len = cumulation.getUnsignedInt(cumulation.readerIndex() + 1);
    return len > maxMessageBytes || bufferedBytes() >= MessageFraming.HEADER_BYTES + len;
  }

  /**
   * The next whole message (a heap buffer the caller owns), or null when none is buffered. Faults
   * fail as grpc-java 1.85 fails them, so a call ends alike over TCP and QUIC.
   *
   * @throws io.grpc.StatusRuntimeException {@code RESOURCE_EXHAUSTED} "gRPC message exceeds
   *     maximum size LIMIT: SIZE" for a message above the limit on the wire (checked on the
   *     prefix, before the body is buffered, as grpc-java's deframer does); {@code INTERNAL} for
   *     bad flags; for a message that cannot be decompressed or decompresses beyond the limit, the
   *     status grpc-java's call layer gives when the message fails to parse: on a server UNKNOWN
   *     "Application error processing RPC", on a client CANCELLED "Failed to read message."
   */
  ByteBuffer next() {
    if (!hasMessage()) {
      return null;
    }
    long len = cumulation.getUnsignedInt(cumulation.readerIndex() + 1);
    if (len > maxMessageBytes) {
      throw Status.RESOURCE_EXHAUSTED.withDescription(String.format(Locale.US,
          "gRPC message exceeds maximum size %d: %d", maxMessageBytes, len)).asRuntimeException();
    }
    byte flag = cumulation.getByte(cumulation.readerIndex());
    byte[] framed = new byte[MessageFraming.HEADER_BYTES + (int) len];
    cumulation.readBytes(framed);
    if (flag != GrpcMessageFraming.FLAG_COMPRESSED) {
      // Checks the flag byte: 0 is a plain message, anything but 1 is malformed.
      return GrpcMessageFraming.decode(ByteBuffer.wrap(framed), encoding, decompressors, maxMessageBytes);
    }
    if (GrpcMessageFraming.IDENTITY.equals(encoding) || decompressors.lookupDecompressor(encoding) == null) {
      throw Status.INTERNAL.withDescription("Can't decode compressed gRPC message as compression not configured"
          + " (grpc-encoding " + encoding + ")").asRuntimeException();
    }
    try {
      return GrpcMessageFraming.decode(ByteBuffer.wrap(framed), encoding, decompressors, maxMessageBytes);
    } catch (StatusRuntimeException e) {
      Status unreadable = server
          ? Status.UNKNOWN.withDescription("Application error processing RPC")
          : Status.CANCELLED.withDescription("Failed to read message.");
      throw unreadable.withCause(e).asRuntimeException();
    }
  }

  /** Frees the buffered bytes. Idempotent. */
  void release() {
    if (cumulation != null) {
      cumulation.release();
      cumulation = null;
    }
  }
}
