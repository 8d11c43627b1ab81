package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import dev.tern.transport.udp.util.Saturating;
import java.nio.ByteBuffer;

/**
 * ACK and ACK_RECEIVE_TIMESTAMPS (RFC 9000 §19.3; docs/protocol.md §6). A reusable view holding
 * the ranges as absolute packet numbers, largest first, in preallocated arrays: decoding
 * allocates nothing.
 */
public final class AckFrame {
  /** Most ACK Ranges after the first one (docs/protocol.md §6). */
  public static final int MAX_EXTRA_RANGES = 256;
  /** Most ranges in total. */
  public static final int MAX_RANGES = MAX_EXTRA_RANGES + 1;
  /** Most receive timestamps. */
  public static final int MAX_TIMESTAMPS = 64;
  /** The ack-delay exponent, fixed in version 1. */
  public static final int ACK_DELAY_EXPONENT = 3;

  /** The ACK Delay field (microseconds shifted right by {@link #ACK_DELAY_EXPONENT}). */
  public long ackDelay;
  /** Number of ranges in {@link #largest}/{@link #smallest}. */
  public int rangeCount;
  /** Largest packet number of each range, descending. */
  public final long[] largest = new long[MAX_RANGES];
  /** Smallest packet number of each range. */
  public final long[] smallest = new long[MAX_RANGES];
  /** Whether receive timestamps were present (type 0x03). */
  public boolean hasTimestamps;
  /** Number of timestamps. */
  public int timestampCount;
  /** Packet number of each timestamp. */
  public final long[] timestampPn = new long[MAX_TIMESTAMPS];
  /** Receive time of each, microseconds since the ACK sender's epoch. */
  public final long[] timestampUs = new long[MAX_TIMESTAMPS];

  /** The largest acknowledged packet number. */
  public long largestAcknowledged() {
    return largest[0];
  }

  /**
   * The ACK delay in nanoseconds (RFC 9000 §19.3: the field times 2^ack_delay_exponent
   * microseconds), saturating at {@code Long.MAX_VALUE}: the field is the peer's choice, up to
   * 2^62 - 1, and must not wrap into a negative delay.
   */
  public long ackDelayNs() {
    return Saturating.usToNs(Saturating.shiftLeft(ackDelay, ACK_DELAY_EXPONENT));
  }

  /**
   * Writes an ACK of the given ranges (largest first), as many as fit in {@code maxBytes}
   * (always at least the first). With {@code tsCount > 0} writes ACK_RECEIVE_TIMESTAMPS with those
   * timestamps (absolute packet numbers and microsecond times, decreasing packet numbers).
   *
   * @return the number of ranges written, or 0 if not even the first range fits
   */
  public static int encode(ByteBuffer out, long[] rangeLargest, long[] rangeSmallest,
      int rangeCount, long ackDelayNs, long[] tsPn, long[] tsUs, int tsCount, int maxBytes) {
    long delay = (ackDelayNs / 1000L) >>> ACK_DELAY_EXPONENT;
    int n = Math.min(rangeCount, MAX_RANGES);
    int tsBytes = 0;
    if (tsCount > 0) {
      tsBytes = VarInt.size(tsCount) + VarInt.size(tsUs[0]);
      for (int i = 0; i < tsCount; i++) {
        tsBytes += VarInt.size(rangeLargest[0] - tsPn[i]) + VarInt.size(tsUs[0] - tsUs[i]);
      }
    }
    int fixed = 1 + VarInt.size(rangeLargest[0]) + VarInt.size(delay)
        + VarInt.size(rangeLargest[0] - rangeSmallest[0]) + tsBytes;
    int size = fixed + 1;
    int fit = 1;
    for (int i = 1; i < n; i++) {
      int add = VarInt.size(rangeSmallest[i - 1] - rangeLargest[i] - 2)
          + VarInt.size(rangeLargest[i] - rangeSmallest[i]);
      int countDelta = VarInt.size(i) - VarInt.size(i - 1);
      if (size + add + countDelta > maxBytes) {
        break;
      }
      size += add + countDelta;
      fit = i + 1;
    }
    if (size > maxBytes) {
      return 0;
    }
    out.put((byte) (tsCount > 0 ? FrameType.ACK_RECEIVE_TIMESTAMPS : FrameType.ACK));
    VarInt.write(out, rangeLargest[0]);
    VarInt.write(out, delay);
    VarInt.write(out, fit - 1);
    VarInt.write(out, rangeLargest[0] - rangeSmallest[0]);
    for (int i = 1; i < fit; i++) {
      // RFC 9000 §19.3.1: Gap = previous smallest - this largest - 2.
      VarInt.write(out, rangeSmallest[i - 1] - rangeLargest[i] - 2);
      VarInt.write(out, rangeLargest[i] - rangeSmallest[i]);
    }
    if (tsCount > 0) {
      VarInt.write(out, tsCount);
      VarInt.write(out, tsUs[0]);
      for (int i = 0; i < tsCount; i++) {
        VarInt.write(out, rangeLargest[0] - tsPn[i]);
        VarInt.write(out, tsUs[0] - tsUs[i]);
      }
    }
    return fit;
  }

  /** Reads the fields following the type byte {@code type}; false if malformed. */
  public boolean decode(ByteBuffer in, int type) {
    hasTimestamps = type == FrameType.ACK_RECEIVE_TIMESTAMPS;
    timestampCount = 0;
    long largestAcked = VarInt.read(in);
    ackDelay = VarInt.read(in);
    long extra = VarInt.read(in);
    long first = VarInt.read(in);
    if (largestAcked < 0 || ackDelay < 0 || extra < 0 || extra > MAX_EXTRA_RANGES || first < 0
        || first > largestAcked) {
      return false;
    }
    largest[0] = largestAcked;
    smallest[0] = largestAcked - first;
    rangeCount = 1;
    for (int i = 1; i <= extra; i++) {
      long gap = VarInt.read(in);
      long len = VarInt.read(in);
      if (gap < 0 || len < 0) {
        return false;
      }
      long hi = smallest[i - 1] - gap - 2;
      long lo = hi - len;
      if (hi < 0 || lo < 0) {
        return false;
      }
      largest[i] = hi;
      smallest[i] = lo;
      rangeCount++;
    }
    return !hasTimestamps || decodeTimestamps(in);
  }

  private boolean decodeTimestamps(ByteBuffer in) {
    long count = VarInt.read(in);
    long base = VarInt.read(in);
    if (count < 0 || count > MAX_TIMESTAMPS || base < 0) {
      return false;
    }
    for (int i = 0; i < count; i++) {
      long pnDelta = VarInt.read(in);
      long timeDelta = VarInt.read(in);
      if (pnDelta < 0 || timeDelta < 0 || pnDelta > largest[0] || timeDelta > base) {
        return false;
      }
      timestampPn[i] = largest[0] - pnDelta;
      timestampUs[i] = base - timeDelta;
    }
    timestampCount = (int) count;
    return true;
  }
}
