package dev.tern.transport.udp.util;

/**
 * Saturating arithmetic for durations and instants in nanoseconds: results clamp to
 * {@code [Long.MIN_VALUE, Long.MAX_VALUE]} instead of wrapping. A peer chooses many of the values
 * the connection turns into time (max_idle_timeout, max_ack_delay, ACK Delay); with wrapping
 * arithmetic a large one turns negative and drives a timer into the past. {@code Long.MAX_VALUE}
 * reads as "never" wherever a deadline is kept. Allocation-free.
 */
public final class Saturating {
  private Saturating() {}

  /** {@code a + b}, clamped to the range of {@code long}. */
  public static long add(long a, long b) {
    long r = a + b;
    // Overflow iff both operands have the sign opposite to the result's (Hacker's Delight §2-13).
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /** {@code a * b}, clamped to the range of {@code long}. */
  public static long mul(long a, long b) {
    long hi = multiplyHigh(a, b);
    long lo = a * b;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return lo;
    }
    return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
  }

  /**
   * The high 64 bits of the 128-bit product {@code a * b}, signed: {@code Math.multiplyHigh}, which
   * is Java 9 and missing from Android API level 26. Four 32-bit partial products, the signed
   * high halves carrying the sign (Hacker's Delight §8-2, "mulhs").
   */
  static long multiplyHigh(long a, long b) {
    long a0 = a & 0xffffffffL;
    long a1 = a >> 32;
    long b0 = b & 0xffffffffL;
    long b1 = b >> 32;
    long lowLow = a0 * b0;
    long t = a1 * b0 + (lowLow >>> 32); // within +-(2^63 - 2^31): no overflow
    long middle = (t & 0xffffffffL) + a0 * b1;
    return a1 * b1 + (t >> 32) + (middle >> 32);
  }

  /**
   * {@code value << shift} for a non-negative {@code value}, clamped to {@code Long.MAX_VALUE}
   * ({@code shift} of 63 or more saturates any positive value).
   *
   * @throws IllegalArgumentException if {@code value} or {@code shift} is negative
   */
  public static long shiftLeft(long value, int shift) {
    if (value < 0 || shift < 0) {
      throw new IllegalArgumentException(
          "value and shift must not be negative: value=" + value + ", shift=" + shift);
    }
    if (value == 0) {
      return 0;
    }
    if (shift >= 63 || value > (Long.MAX_VALUE >>> shift)) {
      return Long.MAX_VALUE;
    }
    return value << shift;
  }

  /** Milliseconds as nanoseconds, clamped; a negative input is 0. */
  public static long msToNs(long ms) {
    return ms <= 0 ? 0 : mul(ms, 1_000_000L);
  }

  /** Microseconds as nanoseconds, clamped; a negative input is 0. */
  public static long usToNs(long us) {
    return us <= 0 ? 0 : mul(us, 1_000L);
  }
}
