package dev.tern.rpc.spi;

/**
 * What a client remembers about the servers it has talked to, between connections and, with a
 * file-backed store, between runs of the application: resumption tickets, address-validation
 * tokens, and what a transport or the channel learnt about a server. Entries are opaque bytes
 * under a server (an authority, or whatever a transport names it by) and a kind (such as
 * {@code "udp.ticket"}), each with an expiry time; an expired entry is never returned.
 *
 * <p>A store is bounded: past its limits it drops the entries that expire first. Implementations
 * are thread-safe; {@code SessionStores} has an in-memory one and a file-backed one.
 */
public interface SessionStore {

  /**
   * Adds an entry next to the others of its server and kind (several tickets, say). A store may
   * drop older entries of the same server and kind to stay within its limits.
   *
   * @param server the server, such as {@code "example.com:443"}
   * @param kind what the entry is, such as {@code "udp.ticket"}
   * @param value the entry's bytes (copied)
   * @param expiresAtMillis when it expires, in {@link System#currentTimeMillis()} time
   */
  void add(String server, String kind, byte[] value, long expiresAtMillis);

  /**
   * Removes and returns the newest entry of this server and kind that has not expired, for
   * entries meant to be used once (a resumption ticket, a token).
   *
   * @param server the server, such as {@code "example.com:443"}
   * @param kind what the entry is, such as {@code "udp.ticket"}
   * @param nowMillis the time now, in {@link System#currentTimeMillis()} time
   * @return the entry's bytes, or null if there is none
   */
  byte[] take(String server, String kind, long nowMillis);

  /**
   * Replaces every entry of this server and kind by one.
   *
   * @param server the server, such as {@code "example.com:443"}
   * @param kind what the entry is, such as {@code "udp.ticket"}
   * @param value the entry's bytes (copied)
   * @param expiresAtMillis when it expires, in {@link System#currentTimeMillis()} time
   */
  void put(String server, String kind, byte[] value, long expiresAtMillis);

  /**
   * The newest entry of this server and kind that has not expired, left in the store.
   *
   * @param server the server, such as {@code "example.com:443"}
   * @param kind what the entry is, such as {@code "udp.ticket"}
   * @param nowMillis the time now, in {@link System#currentTimeMillis()} time
   * @return the entry's bytes, or null if there is none
   */
  byte[] get(String server, String kind, long nowMillis);

  /**
   * Removes every entry of this server and kind.
   *
   * @param server the server, such as {@code "example.com:443"}
   * @param kind what the entry is, such as {@code "udp.ticket"}
   */
  void remove(String server, String kind);
}
