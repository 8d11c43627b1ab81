package dev.tern.transport.quic;

import dev.tern.rpc.spi.GrpcMessageFraming;
import io.grpc.Compressor;
import io.grpc.CompressorRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;

/**
 * gRPC's length-prefixed messages in HTTP/3 DATA frames, framed by the call layer's {@link
 * GrpcMessageFraming} so every Tern transport that frames messages itself frames them alike.
 */
final class MessageFraming {
  static final int HEADER_BYTES = GrpcMessageFraming.HEADER_LENGTH;

  private MessageFraming() {}

  /**
   * Frames {@code message} (read from its position to its limit), compressed by {@code compressor}
   * (null: not compressed). The returned buffer wraps heap memory and belongs to the caller.
   */
  static ByteBuf frame(ByteBuffer message, Compressor compressor) {
    return Unpooled.wrappedBuffer(GrpcMessageFraming.encode(message, compressor));
  }

  /**
   * The compressor {@code registry} has for {@code encoding}; null for identity.
   *
   * @throws IllegalArgumentException naming the encoding when the registry has none for it
   */
  static Compressor compressor(CompressorRegistry registry, String encoding) {
    if (encoding == null || GrpcMessageFraming.IDENTITY.equals(encoding)) {
      return null;
    }
    Compressor c = registry.lookupCompressor(encoding);
    if (c == null) {
      throw new IllegalArgumentException("encoding: no compressor for '" + encoding + "' in the compressor registry");
    }
    return c;
  }
}
