package dev.tern.transport.udp.stream;

/**
 * An open-addressing map from stream ID to {@link Stream} (linear probing, backward-shift
 * deletion): no boxing, no allocation except when it grows.
 */
final class StreamMap {
  private long[] keys = new long[16];
  private Stream[] values = new Stream[16];
  private int size;

  int size() {
    return size;
  }

  private static int hash(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  Stream get(long key) {
    int mask = keys.length - 1;
    for (int i = hash(key, mask); ; i = (i + 1) & mask) {
      Stream v = values[i];
      if (v == null) {
        return null;
      }
      if (keys[i] == key) {
        return v;
      }
    }
  }

  void put(long key, Stream value) {
    if ((size + 1) * 2 > keys.length) {
      grow();
    }
    int mask = keys.length - 1;
    int i = hash(key, mask);
    while (values[i] != null && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (values[i] == null) {
      size++;
    }
    keys[i] = key;
    values[i] = value;
  }

  void remove(long key) {
    int mask = keys.length - 1;
    int i = hash(key, mask);
    while (values[i] != null && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (values[i] == null) {
      return;
    }
    values[i] = null;
    size--;
    // Backward-shift the cluster that follows.
    for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      int home = hash(keys[j], mask);
      boolean movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
      if (movable) {
        keys[i] = keys[j];
        values[i] = values[j];
        values[j] = null;
        i = j;
      }
    }
  }

  /** The value in slot {@code i} (null if empty), for iteration over {@link #capacity()}. */
  Stream slot(int i) {
    return values[i];
  }

  int capacity() {
    return values.length;
  }

  private void grow() {
    long[] k = keys;
    Stream[] v = values;
    keys = new long[k.length * 2];
    values = new Stream[v.length * 2];
    size = 0;
    for (int i = 0; i < k.length; i++) {
      if (v[i] != null) {
        put(k[i], v[i]);
      }
    }
  }
}
