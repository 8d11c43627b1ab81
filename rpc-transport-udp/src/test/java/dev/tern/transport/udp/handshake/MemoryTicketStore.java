package dev.tern.transport.udp.handshake;

import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A test server's ticket store: tickets in memory with an injectable clock, single use within
 * one instance, and the early-data age window of RFC 8446 §8.3. {@link #sharing} makes a second
 * instance that finds the same tickets (as instances sharing ticket keys would) but keeps its own
 * record of used ones, so a first flight replayed to it is refused only by the age window.
 */
public final class MemoryTicketStore implements TicketStore {
  private final Map<String, Stored> tickets;
  private final Set<String> used = new HashSet<>();
  private final LongSupplier clock;
  private final Random random;
  private final long lifetimeMillis;
  private final long windowMillis;

  /**
   * A store.
   *
   * @param clock the server's clock, ms
   * @param random where ticket ids come from
   * @param lifetimeMillis how long a ticket stays valid
   * @param windowMillis how far the client's ticket age may differ from the server's
   */
  public MemoryTicketStore(LongSupplier clock, Random random, long lifetimeMillis,
      long windowMillis) {
    this(new ConcurrentHashMap<>(), clock, random, lifetimeMillis, windowMillis);
  }

  private MemoryTicketStore(Map<String, Stored> tickets, LongSupplier clock, Random random,
      long lifetimeMillis, long windowMillis) {
    this.tickets = tickets;
    this.clock = clock;
    this.random = random;
    this.lifetimeMillis = lifetimeMillis;
    this.windowMillis = windowMillis;
  }

  /** Another instance with the same tickets, its own used set, and {@code clock}. */
  public MemoryTicketStore sharing(LongSupplier clock) {
    return new MemoryTicketStore(tickets, clock, random, lifetimeMillis, windowMillis);
  }

  private static String key(byte[] id) {
    return HexFormat.of().formatHex(id);
  }

  @Override
  public synchronized Stored find(byte[] ticketId) {
    Stored s = tickets.get(key(ticketId));
    if (s == null || clock.getAsLong() - s.issuedAtMillis() >= lifetimeMillis) {
      return null;
    }
    return s;
  }

  @Override
  public synchronized boolean consume(byte[] ticketId) {
    return used.add(key(ticketId));
  }

  @Override
  public synchronized byte[] issue(byte[] psk, byte[] clientStaticPublicKey) {
    byte[] id = new byte[16];
    random.nextBytes(id);
    tickets.put(key(id), new Stored(psk.clone(), clientStaticPublicKey.clone(),
        clock.getAsLong()));
    return id;
  }

  @Override
  public long lifetimeMillis() {
    return lifetimeMillis;
  }

  @Override
  public boolean earlyDataFresh(Stored ticket, long clientAgeMillis) {
    long serverAge = clock.getAsLong() - ticket.issuedAtMillis();
    return Math.abs(serverAge - clientAgeMillis) <= windowMillis;
  }

  /** Tickets issued so far (over every instance sharing them). */
  public int issued() {
    return tickets.size();
  }
}
