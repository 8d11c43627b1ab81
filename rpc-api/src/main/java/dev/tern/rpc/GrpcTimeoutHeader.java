package dev.tern.rpc;

import io.grpc.Metadata;

/**
 * The {@code grpc-timeout} request header as server interceptors read it: grpc-java leaves it in
 * the headers its services see (as nanoseconds through its own key), so Tern's server puts it back
 * when a transport carried the deadline in a field of its own.
 */
final class GrpcTimeoutHeader {
  /** The header's value in nanoseconds; grpc-java's own key for it parses the same text. */
  static final Metadata.Key<Long> KEY = Metadata.Key.of("grpc-timeout", new Marshaller());
  private static final long MAX_VALUE = 99_999_999L;

  private GrpcTimeoutHeader() {}

  /**
   * gRPC over HTTP/2 ("Requests", Timeout): TimeoutValue is at most 8 ASCII digits, followed by one
   * of the units H, M, S, m, u, n. The smallest unit that fits is used, rounding up.
   */
  static String encode(long nanos) {
    if (nanos <= 0) {
      return "1n";
    }
    if (nanos <= MAX_VALUE) {
      return nanos + "n";
    }
    long[] perUnit = {1_000L, 1_000_000L, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L};
    char[] units = {'u', 'm', 'S', 'M', 'H'};
    for (int i = 0; i < perUnit.length; i++) {
      long value = -Math.floorDiv(-nanos, perUnit[i]);
      if (value <= MAX_VALUE || i == perUnit.length - 1) {
        return Math.min(value, MAX_VALUE) + String.valueOf(units[i]);
      }
    }
    throw new AssertionError("unreachable");
  }

  /** Parses a header value; a malformed one fails naming it. */
  static long decode(String value) {
    if (value == null || value.length() < 2 || value.length() > 9) {
      throw new IllegalArgumentException("malformed grpc-timeout '" + value + "': 1 to 8 digits and a unit");
    }
    long n;
    try {
      n = Long.parseLong(value.substring(0, value.length() - 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("malformed grpc-timeout '" + value + "': 1 to 8 digits and a unit", e);
    }
    switch (value.charAt(value.length() - 1)) {
      case 'n': return n;
      case 'u': return n * 1_000L;
      case 'm': return n * 1_000_000L;
      case 'S': return n * 1_000_000_000L;
      case 'M': return n * 60_000_000_000L;
      case 'H': return n * 3_600_000_000_000L;
      default:
        throw new IllegalArgumentException("malformed grpc-timeout '" + value + "': unit must be one of H M S m u n");
    }
  }

  private static final class Marshaller implements Metadata.AsciiMarshaller<Long> {
    @Override
    public String toAsciiString(Long nanos) {
      return encode(nanos);
    }

    @Override
    public Long parseAsciiString(String serialized) {
      return decode(serialized);
    }
  }
}
