package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.Aead;
import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A {@link TicketStore} that keeps no ticket: the ticket id is the ticket, sealed under a
 * {@link TicketKeys ticket key}, so any instance holding the key opens it (RFC 8446 §4.6.1 leaves
 * the ticket's content to the server; RFC 5077 §4 describes the same self-encrypted form).
 *
 * <pre>
 * Ticket Id (101 bytes) {
 *   Key Id (8),                 // the ticket key that sealed it
 *   Nonce (96),                 // random
 *   Sealed (704) = AEAD(key, nonce, aad = Key Id || Nonce,
 *                       psk (256) || client static public key (256) || issued at, Unix ms (64)),
 * }                             // AEAD: AES-256-GCM unless set otherwise; its 16-byte tag ends it
 * </pre>
 *
 * <p>What it keeps is the replay defence (RFC 8446 §8): {@link #consume} is a strike register
 * (§8.2) for the tickets used in this instance, keeping each until the ticket expires, bounded
 * (full, it refuses a ticket rather than grow); {@link #earlyDataFresh} is §8.3's freshness check,
 * which bounds replays of a first flight to other instances sharing the keys to a window.
 *
 * <p>A ticket lives {@link #DEFAULT_LIFETIME_MILLIS} unless set otherwise, at most RFC 8446
 * §4.6.1's seven days. Nonces are random: a ticket key should seal fewer than 2^32 tickets (NIST
 * SP 800-38D §8.3); rotate it before that. Thread-safe.
 */
public final class SealedTicketStore implements TicketStore {
  /**
   * The default lifetime, 24 hours. An application opened again the next day still resumes (the
   * client keeps tickets on disk), while a stolen ticket is useful for a day, not the seven days
   * RFC 8446 §4.6.1 allows, and the strike register holds a day of resumptions, not a week.
   */
  public static final long DEFAULT_LIFETIME_MILLIS = TimeUnit.HOURS.toMillis(24);
  /** RFC 8446 §4.6.1: a ticket lifetime is at most seven days. */
  public static final long MAX_LIFETIME_MILLIS = TimeUnit.DAYS.toMillis(7);
  /**
   * The default freshness window of early data, 10 seconds (RFC 8446 §8.3 suggests a window of
   * the order of seconds, allowing for the round trip and clock rate differences).
   */
  public static final long DEFAULT_FRESHNESS_WINDOW_MILLIS = 10_000;
  /** Used tickets remembered at most by default: 48 bytes each, under 5 MiB. */
  public static final int DEFAULT_MAX_USED_TICKETS = 100_000;
  /** A ticket that says it was issued further in the future than this is refused. */
  public static final long MAX_CLOCK_SKEW_MILLIS = 60_000;

  static final int NONCE_BYTES = AeadAlgorithm.NONCE_BYTES;
  static final int HEADER_BYTES = 1 + NONCE_BYTES;
  static final int PLAINTEXT_BYTES = 32 + 32 + 8;
  /** Length of every ticket id this store issues. */
  public static final int TICKET_ID_BYTES = HEADER_BYTES + PLAINTEXT_BYTES
      + AeadAlgorithm.TAG_BYTES;

  private final TicketKeys keys;
  private final AeadAlgorithm cipher;
  private final Aead[] aeads = new Aead[256];
  private final long lifetimeMillis;
  private final long windowMillis;
  private final LongSupplier clock;
  private final SecureRandom random;
  private final StrikeRegister used;
  private final byte[] nonce = new byte[NONCE_BYTES];
  private final byte[] plain = new byte[PLAINTEXT_BYTES];

  private SealedTicketStore(Builder b) {
    this.keys = b.keys;
    this.cipher = b.cipher;
    for (TicketKeys.Key k : keys.all()) {
      aeads[k.id()] = b.provider.newAead(cipher, k.secret());
    }
    this.lifetimeMillis = b.lifetimeMillis;
    this.windowMillis = b.windowMillis;
    this.clock = b.clock;
    this.random = b.random;
    this.used = new StrikeRegister(b.maxUsedTickets);
  }

  /** A store sealing under {@code keys} with {@code provider}'s AEAD; defaults otherwise. */
  public static SealedTicketStore of(CryptoProvider provider, TicketKeys keys) {
    return builder(provider, keys).build();
  }

  /** A builder of a store sealing under {@code keys} with {@code provider}'s AEAD. */
  public static Builder builder(CryptoProvider provider, TicketKeys keys) {
    return new Builder(provider, keys);
  }

  /** The keys. */
  public TicketKeys keys() {
    return keys;
  }

  /** The freshness window of early data, in milliseconds. */
  public long freshnessWindowMillis() {
    return windowMillis;
  }

  @Override
  public long lifetimeMillis() {
    return lifetimeMillis;
  }

  @Override
  public synchronized byte[] issue(byte[] psk, byte[] clientStaticPublicKey) {
    Keys.key32("psk", psk);
    Keys.key32("clientStaticPublicKey", clientStaticPublicKey);
    TicketKeys.Key key = keys.current();
    byte[] id = new byte[TICKET_ID_BYTES];
    id[0] = (byte) key.id();
    random.nextBytes(nonce);
    System.arraycopy(nonce, 0, id, 1, NONCE_BYTES);
    ByteBuffer p = ByteBuffer.wrap(plain);
    p.put(psk).put(clientStaticPublicKey).putLong(clock.getAsLong());
    aeads[key.id()].seal(nonce, id, 0, HEADER_BYTES, plain, 0, PLAINTEXT_BYTES, id,
        HEADER_BYTES);
    Arrays.fill(plain, (byte) 0);
    return id;
  }

  @Override
  public synchronized Stored find(byte[] ticketId) {
    long issuedAt = open(ticketId, clock.getAsLong());
    if (issuedAt == Long.MIN_VALUE) {
      return null;
    }
    byte[] psk = Arrays.copyOfRange(plain, 0, 32);
    byte[] client = Arrays.copyOfRange(plain, 32, 64);
    Arrays.fill(plain, (byte) 0);
    return new Stored(psk, client, issuedAt);
  }

  /**
   * Opens {@code ticketId} into {@link #plain}.
   *
   * @return when it was issued, or Long.MIN_VALUE if it does not open under a key held here, or
   *     has expired, or was issued too far in the future
   */
  private long open(byte[] ticketId, long now) {
    if (ticketId == null || ticketId.length != TICKET_ID_BYTES) {
      return Long.MIN_VALUE;
    }
    Aead aead = aeads[ticketId[0] & 0xff];
    if (aead == null) {
      return Long.MIN_VALUE;
    }
    System.arraycopy(ticketId, 1, nonce, 0, NONCE_BYTES);
    int n = aead.open(nonce, ticketId, 0, HEADER_BYTES, ticketId, HEADER_BYTES,
        PLAINTEXT_BYTES + AeadAlgorithm.TAG_BYTES, plain, 0);
    if (n != PLAINTEXT_BYTES) {
      return Long.MIN_VALUE;
    }
    long issuedAt = ByteBuffer.wrap(plain, 64, 8).getLong();
    if (issuedAt > now + MAX_CLOCK_SKEW_MILLIS || now - issuedAt >= lifetimeMillis) {
      Arrays.fill(plain, (byte) 0);
      return Long.MIN_VALUE;
    }
    return issuedAt;
  }

  /**
   * Records the ticket as used (RFC 8446 §8.2). False if it was used already in this instance,
   * does not open or has expired, or if the register is full of used tickets that have not
   * expired (then the ticket cannot be used now: refusing it is safe, remembering it would grow
   * without bound).
   */
  @Override
  public synchronized boolean consume(byte[] ticketId) {
    long now = clock.getAsLong();
    long issuedAt = open(ticketId, now);
    Arrays.fill(plain, (byte) 0);
    if (issuedAt == Long.MIN_VALUE) {
      return false;
    }
    ByteBuffer tag = ByteBuffer.wrap(ticketId, TICKET_ID_BYTES - AeadAlgorithm.TAG_BYTES,
        AeadAlgorithm.TAG_BYTES);
    return used.add(tag.getLong(), tag.getLong(), issuedAt + lifetimeMillis, now);
  }

  /**
   * RFC 8446 §8.3: the client's age of the ticket and the server's (now minus the issue time)
   * differ by at most the freshness window. A negative client age is never fresh.
   */
  @Override
  public boolean earlyDataFresh(Stored ticket, long clientAgeMillis) {
    if (ticket == null || clientAgeMillis < 0) {
      return false;
    }
    long serverAge = clock.getAsLong() - ticket.issuedAtMillis();
    if (serverAge >= lifetimeMillis) {
      return false;
    }
    return Math.abs(serverAge - clientAgeMillis) <= windowMillis;
  }

  /** Used tickets remembered now (for tests). */
  synchronized int usedTickets() {
    return used.size();
  }

  /** Slots of the strike register allocated now (for tests). */
  synchronized int usedCapacity() {
    return used.capacity();
  }

  @Override
  public String toString() {
    return "SealedTicketStore[" + keys + ", " + cipher + ", lifetime " + lifetimeMillis
        + " ms, window " + windowMillis + " ms]";
  }

  /** Settings of a {@link SealedTicketStore}. */
  public static final class Builder {
    private final CryptoProvider provider;
    private final TicketKeys keys;
    private AeadAlgorithm cipher = AeadAlgorithm.AES_256_GCM;
    private long lifetimeMillis = DEFAULT_LIFETIME_MILLIS;
    private long windowMillis = DEFAULT_FRESHNESS_WINDOW_MILLIS;
    private int maxUsedTickets = DEFAULT_MAX_USED_TICKETS;
    private LongSupplier clock = System::currentTimeMillis;
    private SecureRandom random;

    private Builder(CryptoProvider provider, TicketKeys keys) {
      this.provider = Objects.requireNonNull(provider, "provider");
      this.keys = Objects.requireNonNull(keys, "keys");
    }

    /** The AEAD: AES-256-GCM (default) or ChaCha20-Poly1305. */
    public Builder cipher(AeadAlgorithm cipher) {
      if (cipher == null || cipher.keyBytes() != TicketKeys.KEY_BYTES) {
        throw new IllegalArgumentException("a ticket cipher takes a 32-byte key: AES_256_GCM or"
            + " CHACHA20_POLY1305, got " + cipher);
      }
      this.cipher = cipher;
      return this;
    }

    /** How long a ticket lives, 1 ms to seven days (RFC 8446 §4.6.1). */
    public Builder lifetimeMillis(long millis) {
      if (millis < 1 || millis > MAX_LIFETIME_MILLIS) {
        throw new IllegalArgumentException("a ticket lifetime is 1 ms to 7 days (RFC 8446"
            + " §4.6.1), got " + millis + " ms");
      }
      this.lifetimeMillis = millis;
      return this;
    }

    /** The freshness window of early data (RFC 8446 §8.3), 0 or more milliseconds. */
    public Builder freshnessWindowMillis(long millis) {
      if (millis < 0) {
        throw new IllegalArgumentException("the freshness window must be 0 or more, got "
            + millis + " ms");
      }
      this.windowMillis = millis;
      return this;
    }

    /** Used tickets remembered at most (the strike register's bound), 1 or more. */
    public Builder maxUsedTickets(int max) {
      if (max < 1 || max > 1 << 28) {
        throw new IllegalArgumentException("maxUsedTickets must be 1..2^28, got " + max);
      }
      this.maxUsedTickets = max;
      return this;
    }

    /** The clock, in Unix milliseconds (default {@link System#currentTimeMillis()}). */
    public Builder clock(LongSupplier clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The source of nonces (default a new SecureRandom). */
    public Builder random(SecureRandom random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** The store. */
    public SealedTicketStore build() {
      if (random == null) {
        random = new SecureRandom();
      }
      return new SealedTicketStore(this);
    }
  }
}
