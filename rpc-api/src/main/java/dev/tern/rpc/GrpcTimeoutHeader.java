package dev.tern.rpc;

import dev.tern.rpc.spi.GrpcTimeout;
import io.grpc.Metadata;

/**
 * The {@code grpc-timeout} request header as server interceptors read it: grpc-java leaves it in
 * the headers its services see (as nanoseconds through its own key), so Tern's server puts it back
 * when a transport carried the deadline in a field of its own. The text is {@link GrpcTimeout}'s.
 */
final class GrpcTimeoutHeader {
  /** The header's value in nanoseconds; grpc-java's own key for it parses the same text. */
  static final Metadata.Key<Long> KEY = Metadata.Key.of("grpc-timeout", new Marshaller());

  private GrpcTimeoutHeader() {}

  private static final class Marshaller implements Metadata.AsciiMarshaller<Long> {
    @Override
    public String toAsciiString(Long nanos) {
      return GrpcTimeout.encode(nanos);
    }

    @Override
    public Long parseAsciiString(String serialized) {
      return GrpcTimeout.decode(serialized);
    }
  }
}
