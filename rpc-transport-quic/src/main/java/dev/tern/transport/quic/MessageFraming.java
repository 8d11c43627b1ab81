package dev.tern.transport.quic;

import dev.tern.rpc.spi.GrpcMessageFraming;
import io.grpc.Codec;
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
   * Frames {@code message} (read from its position to its limit), compressed with {@code encoding}
   * when that is {@code gzip}. The returned buffer wraps heap memory and belongs to the caller.
   */
  static ByteBuf frame(ByteBuffer message, String encoding) {
    return Unpooled.wrappedBuffer(GrpcMessageFraming.encode(message, "gzip".equals(encoding) ? new Codec.Gzip() : null));
  }
}
