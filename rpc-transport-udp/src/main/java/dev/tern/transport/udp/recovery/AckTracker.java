package dev.tern.transport.udp.recovery;

import dev.tern.transport.udp.frame.AckFrame;
import java.nio.ByteBuffer;

/**
 * The receive side of acknowledgement (RFC 9000 §13.2): which packet numbers arrived (up to 256
 * ranges plus the first, the oldest forgotten beyond that), duplicate detection, when an ACK is
 * due, and writing it. Preallocated arrays; nothing allocates per packet.
 */
public final class AckTracker {
  /** RFC 9000 §13.2.2: acknowledge at least every second ack-eliciting packet. */
  public static final int ACK_ELICITING_THRESHOLD = 2;
  /** Receive timestamps kept for ACK_RECEIVE_TIMESTAMPS. */
  public static final int TIMESTAMPS = 8;

  private static final int CAPACITY = AckFrame.MAX_RANGES;

  // Ranges, largest first: hi[0] is the largest received packet number.
  private final long[] hi = new long[CAPACITY + 1];
  private final long[] lo = new long[CAPACITY + 1];
  private int count;
  private long floorPn; // packets below this are forgotten and treated as duplicates

  private long largestReceivedNs;
  private int unackedEliciting;
  private long ackDeadlineNs = Long.MAX_VALUE;
  private boolean immediate;
  private boolean anyUnacked;
  private final long maxAckDelayNs;
  /** A deliberate defect ({@link #acknowledgeGaps}): every gap is acknowledged too. */
  private boolean acknowledgeGaps;
  private final long[] gaplessHi = new long[1];
  private final long[] gaplessLo = new long[1];

  private long epochNs = -1;
  private final long[] tsPn = new long[TIMESTAMPS];
  private final long[] tsUs = new long[TIMESTAMPS];
  private final long[] tsPnOut = new long[TIMESTAMPS];
  private final long[] tsUsOut = new long[TIMESTAMPS];
  private int tsNext;
  private int tsCount;

  /** A tracker that delays ACKs at most {@code maxAckDelayNs} (our max_ack_delay). */
  public AckTracker(long maxAckDelayNs) {
    this.maxAckDelayNs = maxAckDelayNs;
  }

  /**
   * Switches on a deliberate defect for the simulator's adversaries ({@code connection.Mutant}):
   * the ACKs written claim every packet number from the smallest to the largest received, gaps
   * included, as an optimistic acknowledger does (RFC 9000 §21.4). Never on in a deployment.
   */
  public void acknowledgeGaps(boolean on) {
    this.acknowledgeGaps = on;
  }

  /** Whether {@code pn} was already received (or is too old to tell: then it is dropped). */
  public boolean isDuplicate(long pn) {
    if (pn < floorPn) {
      return true;
    }
    for (int i = 0; i < count; i++) {
      if (pn > hi[i]) {
        return false;
      }
      if (pn >= lo[i]) {
        return true;
      }
    }
    return false;
  }

  /** The largest packet number received, -1 if none. */
  public long largestReceived() {
    return count == 0 ? -1 : hi[0];
  }

  /** Records an authentic, non-duplicate packet and schedules the ACK it calls for. */
  public void onPacketReceived(long pn, boolean ackEliciting, long nowNs) {
    if (epochNs < 0) {
      epochNs = nowNs;
    }
    long previousLargest = largestReceived();
    insert(pn);
    if (pn > previousLargest) {
      largestReceivedNs = nowNs;
    }
    tsPn[tsNext] = pn;
    tsUs[tsNext] = (nowNs - epochNs) / 1000;
    tsNext = (tsNext + 1) % TIMESTAMPS;
    tsCount = Math.min(tsCount + 1, TIMESTAMPS);
    anyUnacked = true;
    if (!ackEliciting) {
      return;
    }
    unackedEliciting++;
    // RFC 9000 §13.2.1: acknowledge out-of-order packets at once.
    if (previousLargest >= 0 && (pn < previousLargest || pn > previousLargest + 1)) {
      immediate = true;
    }
    if (unackedEliciting >= ACK_ELICITING_THRESHOLD) {
      immediate = true;
    }
    if (ackDeadlineNs == Long.MAX_VALUE) {
      ackDeadlineNs = nowNs + maxAckDelayNs;
    }
  }

  private void insert(long pn) {
    int i = 0;
    while (i < count && pn < lo[i] - 1) {
      i++;
    }
    if (i < count && pn <= hi[i] + 1 && pn >= lo[i] - 1) {
      if (pn == hi[i] + 1) {
        hi[i] = pn;
        if (i > 0 && hi[i] + 1 == lo[i - 1]) {
          merge(i - 1);
        }
      } else if (pn == lo[i] - 1) {
        lo[i] = pn;
        if (i + 1 < count && hi[i + 1] + 1 == lo[i]) {
          merge(i);
        }
      }
      return;
    }
    // New range at index i (pn lies above range i, below range i-1).
    System.arraycopy(hi, i, hi, i + 1, count - i);
    System.arraycopy(lo, i, lo, i + 1, count - i);
    hi[i] = pn;
    lo[i] = pn;
    count++;
    if (count > CAPACITY) {
      // Forget the oldest range: packets at or below it now count as duplicates.
      count = CAPACITY;
      floorPn = Math.max(floorPn, hi[CAPACITY] + 1);
    }
  }

  /** Merges range {@code i+1} into range {@code i}. */
  private void merge(int i) {
    lo[i] = lo[i + 1];
    System.arraycopy(hi, i + 2, hi, i + 1, count - i - 2);
    System.arraycopy(lo, i + 2, lo, i + 1, count - i - 2);
    count--;
  }

  /** Number of ranges currently tracked. */
  public int rangeCount() {
    return count;
  }

  /**
   * Makes the pending ACK due at once: RFC 9000 §13.2.1 says an endpoint MUST NOT delay the
   * acknowledgement of ack-eliciting Initial (and Handshake) packets.
   */
  public void ackImmediately() {
    if (unackedEliciting > 0) {
      immediate = true;
    }
  }

  /** Whether an ACK should go out now (RFC 9000 §13.2.1-13.2.2). */
  public boolean ackDue(long nowNs) {
    return unackedEliciting > 0 && (immediate || nowNs >= ackDeadlineNs);
  }

  /** Whether anything received is not yet acknowledged (an ACK may ride along in any packet). */
  public boolean hasUnacked() {
    return anyUnacked && count > 0;
  }

  /** When a delayed ACK becomes due, {@code Long.MAX_VALUE} if none is pending. */
  public long ackDeadlineNs() {
    return unackedEliciting > 0 ? (immediate ? 0 : ackDeadlineNs) : Long.MAX_VALUE;
  }

  /**
   * Writes an ACK (with receive timestamps when {@code withTimestamps}) in at most
   * {@code maxBytes} and resets the ACK schedule.
   *
   * @return the largest acknowledged packet number, or -1 if nothing was written
   */
  public long writeAck(ByteBuffer out, long nowNs, int maxBytes, boolean withTimestamps) {
    if (count == 0) {
      return -1;
    }
    int ts = withTimestamps ? collectTimestamps() : 0;
    long delay = Math.max(0, nowNs - largestReceivedNs);
    int written;
    if (acknowledgeGaps) {
      gaplessHi[0] = hi[0];
      gaplessLo[0] = lo[count - 1];
      written = AckFrame.encode(out, gaplessHi, gaplessLo, 1, delay, tsPnOut, tsUsOut, ts,
          maxBytes);
    } else {
      written = AckFrame.encode(out, hi, lo, count, delay, tsPnOut, tsUsOut, ts, maxBytes);
    }
    if (written == 0) {
      return -1;
    }
    unackedEliciting = 0;
    immediate = false;
    anyUnacked = false;
    ackDeadlineNs = Long.MAX_VALUE;
    return hi[0];
  }

  private int collectTimestamps() {
    int n = 0;
    for (int k = 0; k < tsCount; k++) {
      int idx = (tsNext - 1 - k + TIMESTAMPS) % TIMESTAMPS;
      if (tsPn[idx] <= hi[0]) {
        tsPnOut[n] = tsPn[idx];
        tsUsOut[n] = tsUs[idx];
        n++;
      }
    }
    // Insertion sort by decreasing packet number; drop entries not decreasing in time.
    for (int i = 1; i < n; i++) {
      long p = tsPnOut[i];
      long t = tsUsOut[i];
      int j = i - 1;
      while (j >= 0 && tsPnOut[j] < p) {
        tsPnOut[j + 1] = tsPnOut[j];
        tsUsOut[j + 1] = tsUsOut[j];
        j--;
      }
      tsPnOut[j + 1] = p;
      tsUsOut[j + 1] = t;
    }
    int kept = 0;
    for (int i = 0; i < n; i++) {
      if (tsPnOut[i] != (kept > 0 ? tsPnOut[kept - 1] : -1)
          && (kept == 0 || tsUsOut[i] <= tsUsOut[0])) {
        tsPnOut[kept] = tsPnOut[i];
        tsUsOut[kept] = tsUsOut[i];
        kept++;
      }
    }
    return kept;
  }
}
