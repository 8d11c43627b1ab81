package dev.tern.transport.udp.connection;

/**
 * Routing table from a connection ID's first 8 bytes to its connection: open addressing with
 * linear probing and backward-shift deletion, so a lookup per datagram neither boxes nor
 * allocates.
 */
final class CidMap {
  private long[] keys = new long[16];
  private Connection[] values = new Connection[16];
  private int size;

  private static int slot(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  Connection get(long key) {
    int mask = keys.length - 1;
    for (int i = slot(key, mask); values[i] != null; i = (i + 1) & mask) {
      if (keys[i] == key) {
        return values[i];
      }
    }
    return null;
  }

  void put(long key, Connection value) {
    if ((size + 1) * 2 > keys.length) {
      long[] k = keys;
      Connection[] v = values;
      keys = new long[k.length * 2];
      values = new Connection[v.length * 2];
      size = 0;
      for (int i = 0; i < k.length; i++) {
        if (v[i] != null) {
          put(k[i], v[i]);
        }
      }
    }
    int mask = keys.length - 1;
    int i = slot(key, mask);
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
    int i = slot(key, mask);
    while (values[i] != null && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (values[i] == null) {
      return;
    }
    values[i] = null;
    size--;
    for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      int home = slot(keys[j], mask);
      boolean movable = j > i ? (home <= i || home > j) : (home <= i && home > j);
      if (movable) {
        keys[i] = keys[j];
        values[i] = values[j];
        values[j] = null;
        i = j;
      }
    }
  }

  int size() {
    return size;
  }
}
