package dev.tern.rpc.spi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** {@link SessionStore}s: one in memory, for the life of the process. */
public final class SessionStores {
  private SessionStores() {}

  /** Entries an in-memory store keeps at most, over all servers and kinds. */
  public static final int DEFAULT_MAX_ENTRIES = 4096;
  /** Entries of one server and kind a store keeps at most (the newest). */
  public static final int MAX_ENTRIES_PER_KIND = 8;

  private static final SessionStore PROCESS = inMemory(DEFAULT_MAX_ENTRIES);

  /**
   * The process-wide in-memory store transports use when none is set.
   *
   * @return the store, the same one on every call
   */
  public static SessionStore process() {
    return PROCESS;
  }

  /**
   * A store in memory holding at most {@code maxEntries} entries; past that it drops the entries
   * that expire first.
   *
   * @param maxEntries the most entries it keeps, over all servers and kinds
   * @return a new, empty store
   * @throws IllegalArgumentException if {@code maxEntries} is not positive
   */
  public static SessionStore inMemory(int maxEntries) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be positive, got " + maxEntries);
    }
    return new MemoryStore(maxEntries);
  }

  /** An entry: its bytes and expiry. */
  record Entry(byte[] value, long expiresAtMillis) {}

  static final class MemoryStore implements SessionStore {
    private final int maxEntries;
    private final Map<String, List<Entry>> entries = new HashMap<>();
    private int size;

    MemoryStore(int maxEntries) {
      this.maxEntries = maxEntries;
    }

    private static String key(String server, String kind) {
      return Objects.requireNonNull(server, "server") + "\n" + Objects.requireNonNull(kind, "kind");
    }

    @Override
    public synchronized void add(String server, String kind, byte[] value, long expiresAtMillis) {
      List<Entry> list = entries.computeIfAbsent(key(server, kind), k -> new ArrayList<>());
      list.add(new Entry(value.clone(), expiresAtMillis));
      size++;
      if (list.size() > MAX_ENTRIES_PER_KIND) {
        list.remove(0);
        size--;
      }
      while (size > maxEntries) {
        dropSoonestToExpire();
      }
    }

    private void dropSoonestToExpire() {
      List<Entry> victimList = null;
      int victim = -1;
      for (List<Entry> list : entries.values()) {
        for (int i = 0; i < list.size(); i++) {
          if (victimList == null
              || list.get(i).expiresAtMillis() < victimList.get(victim).expiresAtMillis()) {
            victimList = list;
            victim = i;
          }
        }
      }
      victimList.remove(victim);
      size--;
      entries.values().removeIf(List::isEmpty);
    }

    @Override
    public synchronized byte[] take(String server, String kind, long nowMillis) {
      List<Entry> list = entries.get(key(server, kind));
      while (list != null && !list.isEmpty()) {
        Entry e = list.remove(list.size() - 1);
        size--;
        if (e.expiresAtMillis() > nowMillis) {
          return e.value().clone();
        }
      }
      return null;
    }

    @Override
    public synchronized void put(String server, String kind, byte[] value, long expiresAtMillis) {
      remove(server, kind);
      add(server, kind, value, expiresAtMillis);
    }

    @Override
    public synchronized byte[] get(String server, String kind, long nowMillis) {
      List<Entry> list = entries.get(key(server, kind));
      if (list == null) {
        return null;
      }
      for (int i = list.size() - 1; i >= 0; i--) {
        if (list.get(i).expiresAtMillis() > nowMillis) {
          return list.get(i).value().clone();
        }
      }
      return null;
    }

    @Override
    public synchronized void remove(String server, String kind) {
      List<Entry> list = entries.remove(key(server, kind));
      if (list != null) {
        size -= list.size();
      }
    }
  }
}
