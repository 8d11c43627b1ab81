package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.SessionStore;
import dev.tern.rpc.spi.SessionStores;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.SessionTicket;
import java.nio.ByteBuffer;

/**
 * A {@code udp} client's resumption tickets in the channel's {@link SessionStore}
 * (docs/protocol.md §9.10): kind {@link UdpTransportOptions#TICKET_KIND}, server = the authority
 * the client connects to and the pinned server key (a ticket is for one server key). Each entry
 * is used once: a connection takes one. An entry is a format byte, the RPC protocol version the
 * earning connection agreed (the early requests' version), then the ticket's own encoding.
 */
final class ClientTickets {
  /** The first byte of an entry. */
  static final int ENTRY_FORMAT = 1;

  private final SessionStore store;
  private final String server;

  ClientTickets(TransportOptions options, String authority, int keyId, byte[] pinnedKey) {
    SessionStore s = options.get(TransportOptions.SESSION_STORE);
    this.store = s != null ? s : SessionStores.process();
    this.server = serverName(authority, keyId, pinnedKey);
  }

  /** The store's server name for tickets of {@code authority} under a pinned key. */
  static String serverName(String authority, int keyId, byte[] pinnedKey) {
    // The key in lower-case hex, by hand: HexFormat is Java 17, which Android API level 26 lacks.
    StringBuilder name = new StringBuilder().append(authority).append("#udp-key-").append(keyId)
        .append(':');
    for (byte b : pinnedKey) {
      name.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return name.toString();
  }

  /** A ticket taken from the store with the RPC version its requests use. */
  record Entry(SessionTicket ticket, int rpcVersion) {}

  /** Takes one unexpired ticket (single use), or null. */
  Entry take(long nowMillis) {
    while (true) {
      byte[] b = store.take(server, UdpTransportOptions.TICKET_KIND, nowMillis);
      if (b == null) {
        return null;
      }
      Entry e = decode(b);
      if (e != null && !e.ticket().expired(nowMillis)) {
        return e;
      }
      // unreadable (another format) or expired by its own lifetime: dropped, try the next
    }
  }

  /** Keeps a ticket the server issued until its lifetime ends. */
  void add(SessionTicket t, int rpcVersion) {
    store.add(server, UdpTransportOptions.TICKET_KIND, encode(t, rpcVersion),
        t.receivedAtMillis() + t.lifetimeMillis());
  }

  static byte[] encode(SessionTicket t, int rpcVersion) {
    byte[] ticket = t.toBytes();
    return ByteBuffer.allocate(5 + ticket.length).put((byte) ENTRY_FORMAT).putInt(rpcVersion)
        .put(ticket).array();
  }

  static Entry decode(byte[] b) {
    if (b.length < 6 || b[0] != ENTRY_FORMAT) {
      return null;
    }
    int version = ByteBuffer.wrap(b, 1, 4).getInt();
    byte[] ticket = new byte[b.length - 5];
    System.arraycopy(b, 5, ticket, 0, ticket.length);
    SessionTicket t = SessionTicket.fromBytes(ticket);
    return t == null || version <= 0 ? null : new Entry(t, version);
  }
}
