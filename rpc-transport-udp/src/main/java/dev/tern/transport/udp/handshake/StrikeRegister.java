package dev.tern.transport.udp.handshake;

/**
 * The ticket ids already used, for RFC 8446 §8.2's "single-use tickets": each entry is kept until
 * its ticket expires (after which the ticket is refused anyway), and at most {@code max} entries
 * are kept. Full of entries that have not expired, it refuses new ones rather than grow: a
 * ticket that cannot be recorded counts as used (the handshake completes in 1-RTT, its early
 * data refused).
 *
 * <p>An entry is 128 bits (the authentication tag of a sealed ticket, unique to it) and an expiry,
 * in an open-addressed table of three long arrays that doubles up to twice {@code max} slots:
 * 48 bytes per entry at most. Expired entries are swept when the table is full and one of them
 * has expired. Not thread-safe.
 */
final class StrikeRegister {
  private static final int MIN_CAPACITY = 64;

  private final int max;
  private final int maxCapacity;
  private long[] hi;
  private long[] lo;
  /** 0 marks an empty slot; entries store at least 1. */
  private long[] expiry;
  private int size;
  /** No entry expires before this (Long.MAX_VALUE when empty). */
  private long earliest = Long.MAX_VALUE;

  StrikeRegister(int max) {
    if (max < 1 || max > 1 << 28) {
      throw new IllegalArgumentException("max must be 1..2^28, got " + max);
    }
    this.max = max;
    this.maxCapacity = Integer.highestOneBit(Math.max(MIN_CAPACITY, max) * 2 - 1) << 1;
    allocate(Math.min(MIN_CAPACITY, maxCapacity));
  }

  private void allocate(int capacity) {
    hi = new long[capacity];
    lo = new long[capacity];
    expiry = new long[capacity];
  }

  /** Entries held, expired ones included until swept. */
  int size() {
    return size;
  }

  /** Slots allocated. */
  int capacity() {
    return expiry.length;
  }

  /**
   * Records an entry.
   *
   * @return true if it was not there and is now; false if it was there already, or if the
   *     register is full of entries that have not expired by {@code nowMillis}
   */
  boolean add(long h, long l, long expiresAtMillis, long nowMillis) {
    if (contains(h, l)) {
      return false;
    }
    if (size >= max) {
      if (earliest <= nowMillis) {
        rebuild(expiry.length, nowMillis);
      }
      if (size >= max) {
        return false;
      }
    }
    if ((size + 1) * 2 > expiry.length && expiry.length < maxCapacity) {
      rebuild(expiry.length * 2, nowMillis);
    }
    insert(h, l, Math.max(1, expiresAtMillis));
    return true;
  }

  private boolean contains(long h, long l) {
    int mask = expiry.length - 1;
    for (int i = slot(h, l, mask); expiry[i] != 0; i = (i + 1) & mask) {
      if (hi[i] == h && lo[i] == l) {
        return true;
      }
    }
    return false;
  }

  private void insert(long h, long l, long exp) {
    int mask = expiry.length - 1;
    int i = slot(h, l, mask);
    while (expiry[i] != 0) {
      i = (i + 1) & mask;
    }
    hi[i] = h;
    lo[i] = l;
    expiry[i] = exp;
    size++;
    earliest = Math.min(earliest, exp);
  }

  /** Copies the entries that have not expired into a table of {@code capacity} slots. */
  private void rebuild(int capacity, long nowMillis) {
    long[] oh = hi;
    long[] ol = lo;
    long[] oe = expiry;
    allocate(capacity);
    size = 0;
    earliest = Long.MAX_VALUE;
    for (int i = 0; i < oe.length; i++) {
      if (oe[i] > nowMillis) {
        insert(oh[i], ol[i], oe[i]);
      }
    }
  }

  private static int slot(long h, long l, int mask) {
    long x = h ^ Long.rotateLeft(l, 29);
    x *= 0x9e3779b97f4a7c15L;
    return (int) (x ^ (x >>> 32)) & mask;
  }
}
