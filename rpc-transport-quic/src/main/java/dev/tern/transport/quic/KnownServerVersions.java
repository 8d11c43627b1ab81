package dev.tern.transport.quic;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Tern versions each server named in its HTTP/3 SETTINGS, remembered per process so that a
 * later connection to the same server is ready as soon as its handshake completes instead of one
 * round trip later, when that connection's SETTINGS arrive (RFC 9114 §7.2.4.2 lets a client use
 * remembered SETTINGS before the server's arrive). Bounded, least recently used dropped;
 * thread-safe.
 */
final class KnownServerVersions {
  /** Servers remembered at most. */
  static final int CAPACITY = 1024;

  private static final Map<String, Long> VERSIONS = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
      return size() > CAPACITY;
    }
  };

  private KnownServerVersions() {}

  /** The version bits {@code server} last named, or null if none is remembered. */
  static Long get(String server) {
    synchronized (VERSIONS) {
      return VERSIONS.get(server);
    }
  }

  /** Remembers the version bits {@code server} named. */
  static void put(String server, long bits) {
    synchronized (VERSIONS) {
      VERSIONS.put(server, bits);
    }
  }

  /** Forgets every server (tests: a port reused by another test's server must not be known). */
  static void clear() {
    synchronized (VERSIONS) {
      VERSIONS.clear();
    }
  }
}
