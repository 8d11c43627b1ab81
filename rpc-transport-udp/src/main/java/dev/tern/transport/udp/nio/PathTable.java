package dev.tern.transport.udp.nio;

import dev.tern.transport.udp.util.LongObjectMap;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * A server's remote addresses as the core's path ids (docs/protocol.md §8: the core routes by
 * connection ID and only names paths). A known sender's id is found without allocating (the last
 * sender by identity, else a hash lookup); an address gets an entry only once a connection took
 * a datagram from it, so garbage from spoofed addresses leaves nothing behind. Entries no
 * connection uses and not heard from for a while are purged. Loop thread only.
 */
final class PathTable {
  /** One remote address. */
  static final class Path {
    final SocketAddress address;
    final long id;
    long lastSeenNs;

    Path(SocketAddress address, long id) {
      this.address = address;
      this.id = id;
    }
  }

  private final Map<SocketAddress, Path> byAddress = new HashMap<>();
  private final LongObjectMap<Path> byId = new LongObjectMap<>();
  private Path last;
  private long nextId = 1;

  /** The id of {@code from} if known (refreshing it), else -1. No allocation. */
  long find(SocketAddress from, long nowNs) {
    Path p = last;
    if (p == null || (p.address != from && !p.address.equals(from))) {
      p = byAddress.get(from);
      if (p == null) {
        return -1;
      }
      last = p;
    }
    p.lastSeenNs = nowNs;
    return p.id;
  }

  /** The id a new address would get: offered to the core before it is known to be wanted. */
  long provisionalId() {
    return nextId;
  }

  /** Records {@code from} under the provisional id (a connection took its datagram). */
  void add(SocketAddress from, long nowNs) {
    Path p = new Path(from, nextId++);
    p.lastSeenNs = nowNs;
    byAddress.put(from, p);
    byId.put(p.id, p);
    last = p;
  }

  /**
   * Whether paths {@code a} and {@code b} reach the same host (their addresses differ at most in
   * the port); false when either is unknown.
   */
  boolean sameHost(long a, long b) {
    SocketAddress x = address(a);
    SocketAddress y = address(b);
    if (x instanceof java.net.InetSocketAddress ix && y instanceof java.net.InetSocketAddress iy) {
      return ix.getAddress() != null && ix.getAddress().equals(iy.getAddress());
    }
    return false;
  }

  /** The address of path {@code id}, or null if it was purged (or never existed). */
  SocketAddress address(long id) {
    Path p = byId.get(id);
    return p == null ? null : p.address;
  }

  int size() {
    return byAddress.size();
  }

  /**
   * Drops paths not heard from since {@code olderThanNs} whose ids {@code inUse} does not name.
   *
   * @param inUse the path ids of the live connections: current ones, and those a connection
   *     validating a new path would return to
   */
  void purge(long olderThanNs, long[] inUse, int inUseCount) {
    Iterator<Path> it = byAddress.values().iterator();
    while (it.hasNext()) {
      Path p = it.next();
      if (p.lastSeenNs - olderThanNs >= 0 || contains(inUse, inUseCount, p.id)) {
        continue;
      }
      it.remove();
      byId.remove(p.id);
      if (last == p) {
        last = null;
      }
    }
  }

  private static boolean contains(long[] ids, int count, long id) {
    for (int i = 0; i < count; i++) {
      if (ids[i] == id) {
        return true;
      }
    }
    return false;
  }
}
