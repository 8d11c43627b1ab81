package dev.tern.transport.udp.util;

/**
 * A map from {@code long} to objects with open addressing, linear probing and backward-shift
 * deletion: lookups and updates neither box nor allocate (only growing does), so it can sit on a
 * per-datagram path. Keys are stream IDs or connection-ID prefixes; null values are not allowed.
 * Not thread-safe: it belongs to the thread that owns the connection or endpoint.
 *
 * @param <V> the value type
 */
public final class LongObjectMap<V> {
  private long[] keys = new long[16];
  private Object[] values = new Object[16];
  private int size;

  /** The number of entries. */
  public int size() {
    return size;
  }

  private static int slotOf(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L; // Fibonacci hashing spreads sequential stream IDs
    return (int) (h ^ (h >>> 32)) & mask;
  }

  /** The value for {@code key}, or null. */
  @SuppressWarnings("unchecked")
  public V get(long key) {
    int mask = keys.length - 1;
    for (int i = slotOf(key, mask); values[i] != null; i = (i + 1) & mask) {
      if (keys[i] == key) {
        return (V) values[i];
      }
    }
    return null;
  }

  /** Maps {@code key} to {@code value} (not null), replacing any earlier value. */
  public void put(long key, V value) {
    if (value == null) {
      throw new IllegalArgumentException("value must not be null (key " + key + ")");
    }
    if ((size + 1) * 2 > keys.length) {
      grow();
    }
    int mask = keys.length - 1;
    int i = slotOf(key, mask);
    while (values[i] != null && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (values[i] == null) {
      size++;
    }
    keys[i] = key;
    values[i] = value;
  }

  /** Removes {@code key}'s entry, if any. */
  public void remove(long key) {
    int mask = keys.length - 1;
    int i = slotOf(key, mask);
    while (values[i] != null && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (values[i] == null) {
      return;
    }
    values[i] = null;
    size--;
    // Backward-shift the rest of the cluster so later lookups still find their keys.
    for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      int home = slotOf(keys[j], mask);
      boolean movable = j > i ? (home <= i || home > j) : (home <= i && home > j);
      if (movable) {
        keys[i] = keys[j];
        values[i] = values[j];
        values[j] = null;
        i = j;
      }
    }
  }

  /** The value in slot {@code i} (null if empty), for iterating over {@link #capacity()} slots. */
  @SuppressWarnings("unchecked")
  public V slot(int i) {
    return (V) values[i];
  }

  /** The number of slots, for iteration with {@link #slot(int)}. */
  public int capacity() {
    return values.length;
  }

  private void grow() {
    long[] k = keys;
    Object[] v = values;
    keys = new long[k.length * 2];
    values = new Object[v.length * 2];
    size = 0;
    for (int i = 0; i < k.length; i++) {
      if (v[i] != null) {
        @SuppressWarnings("unchecked")
        V value = (V) v[i];
        put(k[i], value);
      }
    }
  }
}
