package dev.tern.rpc.spi;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * {@link SessionStore}s: one in memory, for the life of the process, and one backed by a file,
 * which survives restarts of the application.
 */
public final class SessionStores {
  private SessionStores() {}

  /** Entries an in-memory store keeps at most, over all servers and kinds. */
  public static final int DEFAULT_MAX_ENTRIES = 4096;
  /** Entries of one server and kind a store keeps at most (the newest). */
  public static final int MAX_ENTRIES_PER_KIND = 8;

  /**
   * Bytes a store keeps at most unless told otherwise, over all entries: each entry counts its
   * value, its server and kind in UTF-8, and {@link #ENTRY_OVERHEAD_BYTES}. An entry larger than
   * the bound is not kept.
   */
  public static final long DEFAULT_MAX_BYTES = 1L << 20;
  /** What an entry counts towards the byte bound besides its value, server and kind. */
  public static final int ENTRY_OVERHEAD_BYTES = 16;

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
    return new MemoryStore(maxEntries, DEFAULT_MAX_BYTES);
  }

  /**
   * A store backed by {@code file}, holding at most {@code maxEntries} entries and
   * {@link #DEFAULT_MAX_BYTES} bytes; see {@link #file(Path, int, long)}.
   *
   * @param file the file; its directory must exist
   * @param maxEntries entries kept at most, over all servers and kinds
   * @return the store, holding the file's entries that have not expired
   * @throws IllegalArgumentException if {@code maxEntries} is not positive
   */
  public static SessionStore file(Path file, int maxEntries) {
    return file(file, maxEntries, DEFAULT_MAX_BYTES);
  }

  /**
   * A store backed by {@code file}, which keeps its entries across restarts of the application.
   *
   * <p>The entries are loaded when the store is made; a missing file is an empty store, and a
   * file that cannot be read, is truncated, garbled, of another format or larger than the bounds
   * allow is also treated as empty, with one WARNING logged (never an exception). Every change is
   * on disk when the method that made it returns: the whole file is rewritten to a temporary file
   * in the same directory, forced to the device, and moved over the old one atomically, so a crash
   * leaves either the old file or the new one. Concurrent changes share one write. In particular a
   * {@link SessionStore#take take} is on disk before the entry is returned; if it cannot be
   * written, the take answers null (the entry is dropped) so that a used ticket never comes back
   * after a restart. Expired entries are not written. A write that fails for another change is
   * logged at WARNING and the change kept in memory. One file serves one store in one process.
   *
   * @param file the file; its directory must exist
   * @param maxEntries entries kept at most, over all servers and kinds
   * @param maxBytes bytes kept at most (see {@link #DEFAULT_MAX_BYTES} for what counts)
   * @return the store, holding the file's entries that have not expired
   * @throws IllegalArgumentException if {@code maxEntries} or {@code maxBytes} is not positive
   */
  public static SessionStore file(Path file, int maxEntries, long maxBytes) {
    checkBounds(maxEntries, maxBytes);
    return new FileSessionStore(file, maxEntries, maxBytes, System::currentTimeMillis);
  }

  static void checkBounds(int maxEntries, long maxBytes) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be positive, got " + maxEntries);
    }
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
    }
  }

  /** Where an entry lives: its server and kind. */
  record Key(String server, String kind) {
    Key {
      Objects.requireNonNull(server, "server");
      Objects.requireNonNull(kind, "kind");
    }
  }

  /** An entry: its bytes, expiry, and what it counts towards the byte bound. */
  record Entry(byte[] value, long expiresAtMillis, long bytes) {}

  /**
   * The in-memory store, also the file-backed store's memory. Each server and kind has a list,
   * oldest first; a list that becomes empty is removed, so the map never holds more keys than
   * entries.
   */
  static final class MemoryStore implements SessionStore {
    private final int maxEntries;
    private final long maxBytes;
    private final Map<Key, List<Entry>> entries = new HashMap<>();
    private int size;
    private long bytes;

    MemoryStore(int maxEntries, long maxBytes) {
      this.maxEntries = maxEntries;
      this.maxBytes = maxBytes;
    }

    static long sizeOf(String server, String kind, int valueBytes) {
      return (long) valueBytes + ENTRY_OVERHEAD_BYTES
          + server.getBytes(StandardCharsets.UTF_8).length
          + kind.getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public synchronized void add(String server, String kind, byte[] value, long expiresAtMillis) {
      Key key = new Key(server, kind);
      long entryBytes = sizeOf(server, kind, value.length);
      if (entryBytes > maxBytes) {
        return;
      }
      List<Entry> list = entries.computeIfAbsent(key, k -> new ArrayList<>());
      list.add(new Entry(value.clone(), expiresAtMillis, entryBytes));
      size++;
      bytes += entryBytes;
      if (list.size() > MAX_ENTRIES_PER_KIND) {
        removeAt(key, list, 0);
      }
      while (size > maxEntries || bytes > maxBytes) {
        dropSoonestToExpire();
      }
    }

    private Entry removeAt(Key key, List<Entry> list, int i) {
      Entry e = list.remove(i);
      size--;
      bytes -= e.bytes();
      if (list.isEmpty()) {
        entries.remove(key);
      }
      return e;
    }

    private void dropSoonestToExpire() {
      Key victimKey = null;
      List<Entry> victimList = null;
      int victim = -1;
      for (Map.Entry<Key, List<Entry>> kl : entries.entrySet()) {
        List<Entry> list = kl.getValue();
        for (int i = 0; i < list.size(); i++) {
          if (victimList == null
              || list.get(i).expiresAtMillis() < victimList.get(victim).expiresAtMillis()) {
            victimKey = kl.getKey();
            victimList = list;
            victim = i;
          }
        }
      }
      removeAt(victimKey, victimList, victim);
    }

    @Override
    public synchronized byte[] take(String server, String kind, long nowMillis) {
      Key key = new Key(server, kind);
      List<Entry> list = entries.get(key);
      while (list != null && !list.isEmpty()) {
        Entry e = removeAt(key, list, list.size() - 1);
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
      List<Entry> list = entries.get(new Key(server, kind));
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
      List<Entry> list = entries.remove(new Key(server, kind));
      if (list != null) {
        for (Entry e : list) {
          size--;
          bytes -= e.bytes();
        }
      }
    }

    /** Entries held, expired ones included until dropped or taken. */
    synchronized int size() {
      return size;
    }

    /** Servers and kinds that have entries. */
    synchronized int kinds() {
      return entries.size();
    }

    /** Bytes held, as counted towards the bound. */
    synchronized long bytes() {
      return bytes;
    }

    /** Hands every entry that expires after {@code nowMillis} to {@code sink}, oldest first. */
    synchronized void forEachLive(long nowMillis, BiConsumer<Key, Entry> sink) {
      for (Map.Entry<Key, List<Entry>> kl : entries.entrySet()) {
        for (Entry e : kl.getValue()) {
          if (e.expiresAtMillis() > nowMillis) {
            sink.accept(kl.getKey(), e);
          }
        }
      }
    }
  }
}
