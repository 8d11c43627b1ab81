package dev.tern.transport.quic;

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
   *     limit, {@code INTERNAL} for a compressed message without an encoding
   */
  ByteBuffer next() {
    if (!hasMessage()) {
      return null;
    }
    int r = cumulation.readerIndex();
    int flags = cumulation.getUnsignedByte(r);
    long len = cumulation.getUnsignedInt(r + 1);
    if (len > maxMessageBytes) {
      throw Status.RESOURCE_EXHAUSTED.withDescription(
          "message of " + len + " bytes is larger than the limit of " + maxMessageBytes).asRuntimeException();
    }
    if ((flags & 0xfe) != 0) {
      throw Status.INTERNAL.withDescription("reserved message flags set: " + flags).asRuntimeException();
    }
    byte[] bytes = new byte[(int) len];
    cumulation.skipBytes(MessageFraming.HEADER_BYTES).readBytes(bytes);
    if ((flags & 1) == 0) {
      return ByteBuffer.wrap(bytes);
    }
    if (!"gzip".equals(encoding)) {
      throw Status.INTERNAL.withDescription(
          "compressed message but grpc-encoding is " + encoding).asRuntimeException();
    }
    return MessageFraming.gunzip(bytes, maxMessageBytes);
  }

  /** Frees the buffered bytes. Idempotent. */
  void release() {
    if (cumulation != null) {
      cumulation.release();
      cumulation = null;
    }
  }
}
