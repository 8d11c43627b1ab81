package dev.tern.transport.quic;

import dev.tern.rpc.spi.GrpcMessageFraming;
import io.grpc.DecompressorRegistry;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;

/**
 * Collects the bytes of a stream's DATA frames and cuts them into whole gRPC messages. Owned by one
 * stream and used on its event loop only. {@link #release()} frees what is still buffered.
 */
final class MessageDeframer {
  private final ByteBufAllocator alloc;
  private final int maxMessageBytes;
  private String encoding = "identity";
  private ByteBuf cumulation;

  MessageDeframer(ByteBufAllocator alloc, int maxMessageBytes) {
    this.alloc = alloc;
    this.maxMessageBytes = maxMessageBytes;
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
   * The next whole message (a heap buffer the caller owns), or null when none is buffered.
   *
   * @throws io.grpc.StatusRuntimeException {@code RESOURCE_EXHAUSTED} for a message above the
   *     limit (checked on the prefix, before the body is buffered), {@code INTERNAL} for bad flags
   *     or a compressed message without a known encoding
   */
  ByteBuffer next() {
    if (!hasMessage()) {
      return null;
    }
    long len = cumulation.getUnsignedInt(cumulation.readerIndex() + 1);
    if (len > maxMessageBytes) {
      throw Status.RESOURCE_EXHAUSTED.withDescription(
          "message of " + len + " bytes is larger than the limit of " + maxMessageBytes).asRuntimeException();
    }
    byte[] framed = new byte[MessageFraming.HEADER_BYTES + (int) len];
    cumulation.readBytes(framed);
    // Checks the flags and decompresses with the encoding the peer named (gzip and identity).
    return GrpcMessageFraming.decode(ByteBuffer.wrap(framed), encoding, DecompressorRegistry.getDefaultInstance(),
        maxMessageBytes);
  }

  /** Frees the buffered bytes. Idempotent. */
  void release() {
    if (cumulation != null) {
      cumulation.release();
      cumulation = null;
    }
  }
}
