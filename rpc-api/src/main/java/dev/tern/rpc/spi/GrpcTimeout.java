package dev.tern.rpc.spi;

import java.util.concurrent.TimeUnit;

/**
 * The {@code grpc-timeout} header of the gRPC over HTTP/2 protocol (reused by gRPC over HTTP/3):
 * at most eight ASCII digits and a unit letter ({@code H M S m u n}). One codec for the call layer
 * (which shows the header to server interceptors as grpc-java does) and for transports that carry
 * it as text.
 */
public final class GrpcTimeout {
  private static final long MAX_DIGITS_VALUE = 99_999_999L;

  private GrpcTimeout() {}

  /**
   * Encodes a duration, rounding up to the smallest unit that keeps eight digits.
   *
   * @param nanos the duration, ns; 0 or less encodes as {@code 1n}
   * @return the header value
   */
  public static String encode(long nanos) {
    if (nanos <= 0) {
      return "1n";
    }
    long cutoff = MAX_DIGITS_VALUE;
    if (nanos <= cutoff) {
      return nanos + "n";
    }
    if (nanos <= cutoff * 1_000L) {
      return ceilDiv(nanos, 1_000L) + "u";
    }
    if (nanos <= cutoff * 1_000_000L) {
      return ceilDiv(nanos, 1_000_000L) + "m";
    }
    if (nanos <= cutoff * 1_000_000_000L) {
      return ceilDiv(nanos, 1_000_000_000L) + "S";
    }
    long minutes = ceilDiv(nanos, TimeUnit.MINUTES.toNanos(1));
    if (minutes <= cutoff) {
      return minutes + "M";
    }
    return Math.min(cutoff, ceilDiv(nanos, TimeUnit.HOURS.toNanos(1))) + "H";
  }

  /**
   * Decodes a header value into nanoseconds.
   *
   * @param value the header value
   * @return the duration, ns
   * @throws IllegalArgumentException naming the value when it is malformed
   */
  public static long decode(String value) {
    if (value == null || value.length() < 2 || value.length() > 9) {
      throw malformed(value, "1 to 8 digits and a unit");
    }
    long n = 0;
    for (int i = 0; i < value.length() - 1; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        throw malformed(value, "1 to 8 digits and a unit");
      }
      n = n * 10 + (c - '0');
    }
    switch (value.charAt(value.length() - 1)) {
      case 'n': return n;
      case 'u': return TimeUnit.MICROSECONDS.toNanos(n);
      case 'm': return TimeUnit.MILLISECONDS.toNanos(n);
      case 'S': return TimeUnit.SECONDS.toNanos(n);
      case 'M': return TimeUnit.MINUTES.toNanos(n);
      case 'H': return TimeUnit.HOURS.toNanos(n);
      default: throw malformed(value, "unit must be one of H M S m u n");
    }
  }

  private static IllegalArgumentException malformed(String value, String rule) {
    return new IllegalArgumentException("malformed grpc-timeout '" + value + "': " + rule);
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
