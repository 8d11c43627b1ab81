package dev.tern.transport.udp.stream;

/**
 * A set of half-open {@code [start, end)} ranges of stream offsets, kept sorted and coalesced in
 * parallel arrays that grow by doubling up to {@link #MAX_RANGES}. Adding and removing allocate
 * nothing once the arrays are large enough.
 */
public final class RangeSet {
  /**
   * Most disjoint ranges kept. Callers that take offsets from the peer check {@link #isFull()}
   * first and drop the input (the peer retransmits), so the set's memory stays bounded.
   */
  public static final int MAX_RANGES = 4096;

  private long[] starts = new long[4];
  private long[] ends = new long[4];
  private int count;

  /** Number of disjoint ranges. */
  public int size() {
    return count;
  }

  /** Whether one more disjoint range might not fit. */
  public boolean isFull() {
    return count >= MAX_RANGES - 1;
  }

  /** Whether the set is empty. */
  public boolean isEmpty() {
    return count == 0;
  }

  /** Start of range {@code i} (ascending order). */
  public long start(int i) {
    return starts[i];
  }

  /** End (exclusive) of range {@code i}. */
  public long end(int i) {
    return ends[i];
  }

  /** Removes everything. */
  public void clear() {
    count = 0;
  }

  /** Whether {@code [start, end)} is entirely in the set. */
  public boolean contains(long start, long end) {
    for (int i = 0; i < count; i++) {
      if (starts[i] <= start && end <= ends[i]) {
        return true;
      }
      if (starts[i] > start) {
        return false;
      }
    }
    return false;
  }

  /** The end of the range that contains {@code offset} or starts at it, else {@code offset}. */
  public long contiguousEnd(long offset) {
    for (int i = 0; i < count; i++) {
      if (starts[i] <= offset && offset <= ends[i]) {
        return ends[i];
      }
    }
    return offset;
  }

  /** Adds {@code [start, end)}. */
  public void add(long start, long end) {
    if (start >= end) {
      return;
    }
    int i = 0;
    while (i < count && ends[i] < start) {
      i++;
    }
    int j = i;
    while (j < count && starts[j] <= end) {
      start = Math.min(start, starts[j]);
      end = Math.max(end, ends[j]);
      j++;
    }
    // Ranges i..j-1 merge into one at i.
    int removed = j - i;
    if (removed == 0) {
      ensureCapacity(count + 1);
      System.arraycopy(starts, i, starts, i + 1, count - i);
      System.arraycopy(ends, i, ends, i + 1, count - i);
      count++;
    } else if (removed > 1) {
      System.arraycopy(starts, j, starts, i + 1, count - j);
      System.arraycopy(ends, j, ends, i + 1, count - j);
      count -= removed - 1;
    }
    starts[i] = start;
    ends[i] = end;
  }

  /** Removes {@code [start, end)}. */
  public void remove(long start, long end) {
    if (start >= end) {
      return;
    }
    for (int i = 0; i < count; i++) {
      if (ends[i] <= start) {
        continue;
      }
      if (starts[i] >= end) {
        return;
      }
      if (starts[i] < start && ends[i] > end) {
        // Split range i in two.
        ensureCapacity(count + 1);
        System.arraycopy(starts, i + 1, starts, i + 2, count - i - 1);
        System.arraycopy(ends, i + 1, ends, i + 2, count - i - 1);
        count++;
        ends[i + 1] = ends[i];
        starts[i + 1] = end;
        ends[i] = start;
        return;
      }
      if (starts[i] < start) {
        ends[i] = start;
      } else if (ends[i] > end) {
        starts[i] = end;
        return;
      } else {
        System.arraycopy(starts, i + 1, starts, i, count - i - 1);
        System.arraycopy(ends, i + 1, ends, i, count - i - 1);
        count--;
        i--;
      }
    }
  }

  /** Removes everything below {@code offset}. */
  public void removeBelow(long offset) {
    if (count > 0 && starts[0] < offset) {
      remove(starts[0], offset);
    }
  }

  private void ensureCapacity(int needed) {
    if (needed <= starts.length) {
      return;
    }
    if (needed > MAX_RANGES) {
      // Bounded memory: a peer that fragments the set this much gets coarser bookkeeping.
      throw new IllegalStateException("more than " + MAX_RANGES + " disjoint ranges");
    }
    int cap = Math.min(MAX_RANGES, starts.length * 2);
    starts = java.util.Arrays.copyOf(starts, cap);
    ends = java.util.Arrays.copyOf(ends, cap);
  }
}
