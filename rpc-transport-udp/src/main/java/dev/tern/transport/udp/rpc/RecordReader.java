package dev.tern.transport.udp.rpc;

import io.grpc.Status;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Reassembles one direction of an RPC stream into records ({@link RpcFraming}), one at a time:
 * it says how many bytes the current record still needs ({@link #needed()}) so that the caller
 * reads no more than that from the stream, and leaves the rest in the protocol's receive window
 * (the flow control the sender feels). A prefix announcing more than the limits allow fails at
 * once, before the body is buffered; within the limits the buffer grows as bytes arrive
 * (doubling, up to the announced length), so a prefix that announces a large message reserves
 * no memory for bytes that have not come. Loop thread only.
 */
final class RecordReader {
  private final int maxMessageBytes;
  private final int maxHeaderBytes;
  /** The first buffer of a record whose bytes have not arrived yet. */
  private static final int INITIAL_BYTES = 16 * 1024;

  private final byte[] prefix = new byte[RpcFraming.PREFIX];
  private int prefixFilled;
  private ByteBuffer record;
  /** The whole record's size, prefix included, as announced. */
  private int recordBytes;

  RecordReader(int maxMessageBytes, int maxHeaderBytes) {
    this.maxMessageBytes = maxMessageBytes;
    this.maxHeaderBytes = maxHeaderBytes;
  }

  /** Bytes the current record still needs (at least 1 unless one is complete). */
  int needed() {
    if (prefixFilled < prefix.length) {
      return prefix.length - prefixFilled;
    }
    return recordBytes - record.position();
  }

  /** Whether nothing of a record has been read. */
  boolean atBoundary() {
    return prefixFilled == 0;
  }

  /** Whether the current record's prefix (type and length) has been read. */
  boolean prefixIn() {
    return prefixFilled == prefix.length;
  }

  /** Whether a whole record is ready for {@link #take()}. */
  boolean hasRecord() {
    return prefixFilled == prefix.length && record.position() == recordBytes;
  }

  /** The type of the record being read (once its prefix is in). */
  int type() {
    return prefix[0] & 0xff;
  }

  /**
   * Takes up to {@link #needed()} bytes from {@code src}.
   *
   * @throws io.grpc.StatusRuntimeException RESOURCE_EXHAUSTED for a message over the limit
   *     (grpc-java's deframer's wording) or a header record over the metadata limit; INTERNAL
   *     for an unknown record type
   */
  void feed(ByteBuffer src) {
    while (src.hasRemaining() && !hasRecord()) {
      if (prefixFilled < prefix.length) {
        int n = Math.min(prefix.length - prefixFilled, src.remaining());
        src.get(prefix, prefixFilled, n);
        prefixFilled += n;
        if (prefixFilled == prefix.length) {
          startBody();
        }
      } else {
        int n = Math.min(needed(), src.remaining());
        if (record.remaining() < n) {
          grow(n);
        }
        int limit = src.limit();
        ((Buffer) src).limit(src.position() + n);
        record.put(src);
        ((Buffer) src).limit(limit);
      }
    }
  }

  private void startBody() {
    long length = ((prefix[1] & 0xffL) << 24) | ((prefix[2] & 0xff) << 16)
        | ((prefix[3] & 0xff) << 8) | (prefix[4] & 0xff);
    int type = type();
    switch (type) {
      case RpcFraming.MESSAGE:
      case RpcFraming.MESSAGE_COMPRESSED:
        if (length > maxMessageBytes) {
          throw Status.RESOURCE_EXHAUSTED.withDescription(String.format(Locale.US,
              "gRPC message exceeds maximum size %d: %d", maxMessageBytes, length))
              .asRuntimeException();
        }
        break;
      case RpcFraming.REQUEST_HEADER:
      case RpcFraming.RESPONSE_HEADERS:
      case RpcFraming.TRAILERS:
        if (length > maxHeaderBytes) {
          throw Status.RESOURCE_EXHAUSTED.withDescription("header record of " + length
              + " bytes exceeds the metadata limit of " + maxHeaderBytes).asRuntimeException();
        }
        break;
      default:
        throw RpcFraming.malformed("unknown record type 0x" + Integer.toHexString(type));
    }
    recordBytes = RpcFraming.PREFIX + (int) length;
    record = ByteBuffer.allocate(Math.min(recordBytes, RpcFraming.PREFIX + INITIAL_BYTES));
    record.put(prefix);
  }

  /** Makes room for {@code n} more bytes: at least double, never past the announced size. */
  private void grow(int n) {
    long wanted = Math.max((long) record.position() + n, 2L * record.capacity());
    ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(recordBytes, wanted));
    ((Buffer) record).flip();
    bigger.put(record);
    record = bigger;
  }

  /**
   * The complete record, prefix included, positioned at 0 (a message record is then what
   * {@link dev.tern.rpc.spi.GrpcMessageFraming#decode} takes); the reader moves to the next.
   */
  ByteBuffer take() {
    ByteBuffer r = record;
    ((Buffer) r).flip();
    record = null;
    prefixFilled = 0;
    return r;
  }
}
