package dev.tern.rpc;

import dev.tern.rpc.spi.SessionStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What channels learned about transports, per server authority: which transport last worked, and
 * which are marked broken and until when, and which better transports its server advertised.
 *
 * <p>A transport that failed to connect while a less preferred one worked is marked broken for
 * that authority: channels leave it out of their races until the mark expires. The first mark
 * lasts {@linkplain Builder#initialBrokenDuration five minutes}; each further mark without a
 * success in between lasts twice as long as the one before, up to a {@linkplain
 * Builder#maxBrokenDuration cap} (two days by default). A success clears the transport's marks.
 *
 * <p>Marks say something about the network the device is on, so {@link #networkChanged()} forgets
 * everything; call it when the device moves to another network (Wi-Fi to cellular, a new access
 * point). Channels share {@link #shared()} unless their builder is given another instance ({@link
 * TernChannelBuilder#transportMemory}). At most {@value #MAX_AUTHORITIES} authorities are
 * remembered; the least recently used is forgotten first. Thread-safe.
 *
 * <p>A memory lives in the process unless it is given a {@link SessionStore} ({@link
 * Builder#sessionStore}); a file-backed store ({@code SessionStores.file}) keeps what it learned
 * across restarts of the application: which transport worked, and which are marked broken until
 * when, in wall-clock time, so that a restart honours what is left of a mark. The memory reads the
 * store once, when it is built, and writes it after each change that matters (a mark, another
 * transport working, a network change, which empties it).
 *
 * <p>A server's {@code alt-svc} advertisement ({@link AltSvc}), learnt by a channel from a server
 * it authenticated, is kept per authority and transport until its max-age runs out ({@link
 * #advertisement}); a newer advertisement replaces the authority's whole list (RFC 7838 §3), and
 * one that changed a transport's port or parameters, or is new and names another port than the
 * authority's, clears that transport's broken mark (what failed was another route). A network change forgets the advertisements that do not say {@code
 * persist=1} (RFC 7838 §3.1).
 */
public final class TransportMemory {
  /** How many authorities one memory holds before forgetting the least recently used. */
  public static final int MAX_AUTHORITIES = 1024;

  private static final Logger LOG = Logger.getLogger(TransportMemory.class.getName());

  /** The server under which a memory keeps itself in its store: every authority, one entry. */
  static final String STORE_SERVER = "*";
  /** The kind of that entry. */
  static final String STORE_KIND = "transport.memory";
  /** The format of that entry's bytes (see {@link #encode}). */
  private static final int FORMAT_VERSION = 2;
  /**
   * The most bytes the entry takes: the least recently used authorities that do not fit are not
   * written (well inside a store's default bound, {@code SessionStores.DEFAULT_MAX_BYTES}).
   */
  static final int MAX_STORED_BYTES = 256 * 1024;
  /** Names (authorities, transports) longer than this are not written. */
  private static final int MAX_STORED_NAME = 1024;
  /** How long the entry outlives its last write (unless a mark lasts longer). */
  private static final long STORED_FOR_MILLIS = TimeUnit.DAYS.toMillis(7);

  private static final TransportMemory SHARED = builder().build();

  private final LongSupplier ticker;
  private final LongSupplier wallClock;
  private final long initialBrokenNanos;
  private final long maxBrokenNanos;
  /** Where the memory is kept across restarts, or null. */
  private final SessionStore store;
  /** Serialises writes to {@link #store}; taken before this memory's own lock, never after. */
  private final Object storeLock = new Object();
  /** Changes that should reach the store; guarded by this memory's lock. */
  private long changes;
  /** The last change written to the store; guarded by {@link #storeLock}. */
  private long stored;
  private final Map<String, Authority> authorities =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Authority> eldest) {
          return size() > MAX_AUTHORITIES;
        }
      };

  /** What is known about one authority. */
  private static final class Authority {
    String lastWorked;
    long lastConnectNanos;
    /**
     * The transports {@link #lastWorked} may be tried ahead of: those it beat in a race (still
     * connecting when it won); null for every transport (it was recorded from outside a race).
     */
    Set<String> aheadOf;
    /**
     * Until when (ticker time) {@link #aheadOf} holds: a transport that lost a race by being slower
     * is overtaken for as long as a broken mark would last, then races first again.
     */
    long aheadUntilNanos;
    /** Races in a row {@link #lastWorked} won while a transport it goes ahead of was connecting. */
    int aheadCount;
    final Map<String, Mark> marks = new HashMap<>();
    /** Advertised alternatives by transport name, with when each stops being fresh. */
    final Map<String, Advertised> advertised = new LinkedHashMap<>();
  }

  /** An advertised alternative and the wall-clock time (Unix millis) its max-age runs out. */
  private record Advertised(String transport, AltSvc.Alternative alternative, long expiresAtMillis) {}

  /** One transport's broken mark: how many times in a row it was marked, and until when. */
  private static final class Mark {
    int count;
    long untilNanos;
  }

  private TransportMemory(Builder b) {
    this.ticker = b.ticker;
    this.wallClock = b.wallClock;
    this.initialBrokenNanos = b.initialBrokenNanos;
    this.maxBrokenNanos = b.maxBrokenNanos;
    this.store = b.store;
    if (store != null) {
      load();
    }
  }

  /**
   * The process-wide memory channels use by default (system clock, five minutes doubling).
   *
   * @return the one shared instance
   */
  public static TransportMemory shared() {
    return SHARED;
  }

  /**
   * A builder for a memory of one's own (tests, or a scope narrower than the process).
   *
   * @return a new builder with the defaults: {@link System#nanoTime()}, five minutes, two days
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Whether {@code transport} is marked broken for {@code authority} now.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @param transport the transport's name, as its provider gives it
   * @return true if a mark exists and has not expired yet
   * @throws NullPointerException if an argument is null
   */
  public synchronized boolean isBroken(String authority, String transport) {
    Authority a = authorities.get(Objects.requireNonNull(authority, "authority"));
    Mark m = a == null ? null : a.marks.get(Objects.requireNonNull(transport, "transport"));
    return m != null && m.untilNanos - ticker.getAsLong() > 0;
  }

  /**
   * How much longer {@code transport}'s broken mark for {@code authority} lasts.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @param transport the transport's name, as its provider gives it
   * @return the time left in nanoseconds, or 0 if there is no mark or it has expired
   * @throws NullPointerException if an argument is null
   */
  public synchronized long brokenForNanos(String authority, String transport) {
    Authority a = authorities.get(Objects.requireNonNull(authority, "authority"));
    Mark m = a == null ? null : a.marks.get(Objects.requireNonNull(transport, "transport"));
    return m == null ? 0 : Math.max(0, m.untilNanos - ticker.getAsLong());
  }

  /**
   * The transport that last carried calls to {@code authority}. A channel with the default
   * preference tries it first next time, ahead of the transports it beat (see {@link
   * TransportSelector#candidates(String, TransportMemory)}), and gives it a longer head start
   * before racing the next one.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @return the transport's name, or null if none is known (or it has been marked broken since)
   * @throws NullPointerException if {@code authority} is null
   */
  public synchronized String lastWorked(String authority) {
    Authority a = authorities.get(Objects.requireNonNull(authority, "authority"));
    return a == null ? null : a.lastWorked;
  }

  /**
   * How long the transport that last worked for {@code authority} took to connect.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @return the connect time in nanoseconds, or 0 if unknown (no transport worked, or it was
   *     recorded without a time)
   * @throws NullPointerException if {@code authority} is null
   */
  public synchronized long lastConnectNanos(String authority) {
    Authority a = authorities.get(Objects.requireNonNull(authority, "authority"));
    return a == null || a.lastWorked == null ? 0 : a.lastConnectNanos;
  }

  /**
   * Marks {@code transport} broken for {@code authority}: for the initial duration the first time,
   * twice the previous duration (up to the cap) each further time without a success in between.
   * If it was the transport that last worked, it no longer is.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @param transport the transport's name, as its provider gives it
   * @throws NullPointerException if an argument is null
   */
  public void markBroken(String authority, String transport) {
    synchronized (this) {
      Authority a = authorities.computeIfAbsent(Objects.requireNonNull(authority, "authority"),
          k -> new Authority());
      Mark m = a.marks.computeIfAbsent(Objects.requireNonNull(transport, "transport"),
          k -> new Mark());
      m.count++;
      m.untilNanos = ticker.getAsLong() + durationNanos(m.count);
      if (transport.equals(a.lastWorked)) {
        a.lastWorked = null;
        a.aheadOf = null;
      }
      changes++;
    }
    save();
  }

  /** How long the {@code count}-th mark in a row lasts: the initial duration, doubling, capped. */
  private long durationNanos(int count) {
    long duration = initialBrokenNanos;
    for (int i = 1; i < count && duration < maxBrokenNanos; i++) {
      duration = duration > maxBrokenNanos / 2 ? maxBrokenNanos : duration * 2;
    }
    return Math.min(duration, maxBrokenNanos);
  }

  /**
   * Records that {@code transport} connected to {@code authority}, with no connect time known:
   * clears its marks and makes it the one that last worked, tried first next time.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @param transport the transport's name, as its provider gives it
   * @throws NullPointerException if an argument is null
   */
  public void markWorked(String authority, String transport) {
    markWorked(authority, transport, 0);
  }

  /**
   * Records that {@code transport} connected to {@code authority} in {@code connectNanos}: clears
   * its marks and makes it the one that last worked, tried first next time; the next connect waits
   * up to twice that long for it before starting another transport.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @param transport the transport's name, as its provider gives it
   * @param connectNanos how long the connect took, in nanoseconds; 0 if not known
   * @throws IllegalArgumentException if {@code connectNanos} is negative
   * @throws NullPointerException if {@code authority} or {@code transport} is null
   */
  public void markWorked(String authority, String transport, long connectNanos) {
    synchronized (this) {
      worked(authority, transport, connectNanos, null);
    }
    save();
  }

  /**
   * Records that {@code transport} won a race to {@code authority} in {@code connectNanos}, while
   * the transports {@code beat} were still connecting: it will be tried ahead of those (and of
   * those it was already tried ahead of, if it won last time too) for as long as a broken mark
   * would last (the first time five minutes, doubling with each race in a row it beats them in),
   * but not ahead of a transport that was not in the race, such as one a broken mark or a circuit
   * breaker left out. A win with nothing beaten (tried first, ready within its head start) keeps
   * what was beaten before, until when it was.
   */
  void markWon(String authority, String transport, long connectNanos, Collection<String> beat) {
    synchronized (this) {
      Authority a = authorities.get(Objects.requireNonNull(authority, "authority"));
      boolean again = a != null && transport.equals(a.lastWorked);
      Set<String> ahead = new LinkedHashSet<>(beat);
      ahead.remove(transport);
      long until = 0;
      int count = 0;
      if (again && a.aheadOf == null) {
        ahead = null;
      } else if (again && ahead.isEmpty()) {
        ahead.addAll(a.aheadOf);
        until = a.aheadUntilNanos;
        count = a.aheadCount;
      } else if (!ahead.isEmpty()) {
        boolean current = again && a.aheadUntilNanos - ticker.getAsLong() > 0;
        if (current) {
          ahead.addAll(a.aheadOf);
        }
        // In a row: the same winner beating again, with no win of another transport in between.
        count = again ? a.aheadCount + 1 : 1;
        until = ticker.getAsLong() + durationNanos(count);
      }
      worked(authority, transport, connectNanos, ahead);
      Authority now = authorities.get(authority);
      if (now.aheadUntilNanos != until || now.aheadCount != count) {
        now.aheadUntilNanos = until;
        now.aheadCount = count;
        changes++;
      }
    }
    save();
  }

  /**
   * Records a success; a change the store should see unless only the connect time moved, and by
   * less than half or twice (a connect is not worth a write of the store each time).
   */
  private void worked(String authority, String transport, long connectNanos, Set<String> aheadOf) {
    if (connectNanos < 0) {
      throw new IllegalArgumentException("connectNanos must be >= 0: " + connectNanos);
    }
    Authority a = authorities.get(Objects.requireNonNull(authority, "authority"));
    boolean known = a != null;
    if (a == null) {
      a = new Authority();
      authorities.put(authority, a);
    }
    long before = a.lastConnectNanos;
    boolean same = known && transport.equals(a.lastWorked) && Objects.equals(aheadOf, a.aheadOf)
        && !a.marks.containsKey(transport) && connectNanos <= 2 * before && before <= 2 * connectNanos;
    a.marks.remove(Objects.requireNonNull(transport, "transport"));
    a.lastWorked = transport;
    a.lastConnectNanos = connectNanos;
    a.aheadOf = aheadOf;
    a.aheadUntilNanos = 0;
    a.aheadCount = 0;
    if (!same) {
      changes++;
    }
  }

  /**
   * Whether {@code transport}, the one that last worked for {@code authority}, may be tried ahead
   * of {@code other}: it beat {@code other}, and not longer ago than that lasts (see {@link
   * #markWon}), or was recorded from outside a race; and {@code other} has no broken mark, not
   * even an expired one (when a mark expires, the transport it kept out races again in its place).
   */
  synchronized boolean mayGoAhead(String authority, String transport, String other) {
    Authority a = authorities.get(authority);
    return a != null && transport.equals(a.lastWorked) && !a.marks.containsKey(other)
        && (a.aheadOf == null || a.aheadOf.contains(other) && a.aheadUntilNanos - ticker.getAsLong() > 0);
  }

  /**
   * Forgets every mark and every transport that worked, for every authority: the device is on
   * another network now, where what was learned may no longer hold. Connections already made are
   * not touched; the next connect of each channel races again.
   */
  public void networkChanged() {
    synchronized (this) {
      // What a server said of itself with persist=1 holds on any network (RFC 7838 §3.1).
      authorities.values().removeIf(a -> {
        a.lastWorked = null;
        a.aheadOf = null;
        a.lastConnectNanos = 0;
        a.marks.clear();
        a.advertised.values().removeIf(ad -> !ad.alternative().persist());
        return a.advertised.isEmpty();
      });
      changes++;
    }
    save();
  }

  /**
   * Records what {@code authority}'s server advertised, by transport name: the list replaces every
   * alternative known for it (RFC 7838 §3); an empty map forgets them ({@code clear}). An
   * alternative whose port or parameters changed, or a new one on another port than the
   * authority's, clears its transport's broken mark: it was earned on another route. The store is
   * written when the list changed, or when more than half of a stored max-age has passed (so that
   * a restart does not find it expired while the server keeps saying it).
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @param byTransport the alternatives, keyed by the name of the transport each is for
   * @throws NullPointerException if an argument is null
   */
  public void advertised(String authority, Map<String, AltSvc.Alternative> byTransport) {
    Objects.requireNonNull(authority, "authority");
    synchronized (this) {
      long now = wallClock.getAsLong();
      Authority a = authorities.get(authority);
      if (a == null) {
        if (byTransport.isEmpty()) {
          return;
        }
        a = new Authority();
        authorities.put(authority, a);
      }
      boolean changed = !a.advertised.keySet().equals(byTransport.keySet());
      Map<String, Advertised> next = new LinkedHashMap<>();
      for (Map.Entry<String, AltSvc.Alternative> e : byTransport.entrySet()) {
        AltSvc.Alternative alt = Objects.requireNonNull(e.getValue(), "alternative");
        long expires = now + Math.min(alt.maxAgeSeconds(), Integer.MAX_VALUE) * 1000L;
        Advertised before = a.advertised.get(e.getKey());
        if (before == null || !sameService(before.alternative(), alt)) {
          // A mark earned before the server said the transport is on another port than the
          // authority's (or before it changed what it said) was earned on another route.
          changed = true;
          if (before != null || alt.port() != portOf(authority)) {
            a.marks.remove(e.getKey());
          }
        } else if (before.alternative().persist() == alt.persist()
            && before.alternative().maxAgeSeconds() == alt.maxAgeSeconds()
            && expires - before.expiresAtMillis() <= alt.maxAgeSeconds() * 500L
            && before.expiresAtMillis() <= expires) {
          // The same again, less than half its max-age after it was recorded: kept as it was (at
          // least half its max-age still ahead), and the store is not rewritten for it.
          next.put(e.getKey(), before);
          continue;
        } else {
          changed = true;
        }
        next.put(e.getKey(), new Advertised(e.getKey(), alt, expires));
      }
      a.advertised.clear();
      a.advertised.putAll(next);
      if (changed) {
        changes++;
      } else {
        return;
      }
    }
    save();
  }

  /** The port of {@code host:port} (or {@code [v6]:port}), or -1 if it names none. */
  private static int portOf(String authority) {
    int colon = authority.lastIndexOf(':');
    if (colon < 0 || authority.indexOf(']', colon) >= 0) {
      return -1;
    }
    try {
      return Integer.parseInt(authority.substring(colon + 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Whether two alternatives name the same service: protocol, host, port and parameters. */
  private static boolean sameService(AltSvc.Alternative x, AltSvc.Alternative y) {
    return x.protocolId().equals(y.protocolId()) && x.host().equals(y.host()) && x.port() == y.port()
        && x.parameters().equals(y.parameters());
  }

  /**
   * The alternative {@code authority}'s server advertised for {@code transport}, while its
   * max-age lasts.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @param transport the transport's name, as its provider gives it
   * @return the alternative, or null if none was advertised or it is no longer fresh
   * @throws NullPointerException if an argument is null
   */
  public synchronized AltSvc.Alternative advertisement(String authority, String transport) {
    Authority a = authorities.get(Objects.requireNonNull(authority, "authority"));
    Advertised ad = a == null ? null : a.advertised.get(Objects.requireNonNull(transport, "transport"));
    return ad == null || ad.expiresAtMillis() <= wallClock.getAsLong() ? null : ad.alternative();
  }

  /** Writes this memory to its store if it changed since the last write; never throws. */
  private void save() {
    if (store == null) {
      return;
    }
    synchronized (storeLock) {
      byte[] bytes;
      long expiresAt;
      long upTo;
      synchronized (this) {
        if (changes == stored) {
          return;
        }
        upTo = changes;
        long now = wallClock.getAsLong();
        long latestMark = 0;
        for (Authority a : authorities.values()) {
          for (Mark m : a.marks.values()) {
            latestMark = Math.max(latestMark, untilMillis(m, now));
          }
          for (Advertised ad : a.advertised.values()) {
            latestMark = Math.max(latestMark, ad.expiresAtMillis());
          }
        }
        expiresAt = Math.max(latestMark, now + STORED_FOR_MILLIS);
        bytes = authorities.isEmpty() ? null : encode(now);
      }
      try {
        if (bytes == null) {
          store.remove(STORE_SERVER, STORE_KIND);
        } else {
          store.put(STORE_SERVER, STORE_KIND, bytes, expiresAt);
        }
        stored = upTo;
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "transport memory: could not write its session store; what was"
            + " learned since is kept in memory only", e);
      }
    }
  }

  /** When {@code m} ends in wall-clock time: now if it has ended. */
  private long untilMillis(Mark m, long nowMillis) {
    long left = m.untilNanos - ticker.getAsLong();
    return left <= 0 ? nowMillis : nowMillis + (left + 999_999) / 1_000_000;
  }

  /**
   * The authorities, most recently used first, as bytes (big-endian, {@link DataOutputStream}):
   * format version (1 byte) = 1, authority count (4), then for each: authority (UTF), whether a
   * transport worked (1) and if so its name (UTF), its connect time in nanoseconds (8) and the
   * transports it goes ahead of (count (4), -1 for every one, then each name (UTF), and unless -1
   * the races in a row it beat them in (4) and the end of its precedence in Unix millis (8)), then the
   * marks (count (4), then each: transport (UTF), times marked in a row (4), end in Unix millis
   * (8)), then the advertised alternatives (count (4), then each: transport (UTF), protocol id
   * (UTF), host (UTF), port (4), max-age in seconds (8), persist (1), end in Unix millis (8),
   * parameter count (4) and each parameter's name and value (UTF, UTF)). Format version 1, written
   * before advertisements were kept and before precedence expired, is the same without those. Authorities past {@link
   * #MAX_STORED_BYTES}, or with a name longer than {@link #MAX_STORED_NAME}, are left out; the
   * store's own file has a checksum.
   */
  private byte[] encode(long nowMillis) {
    List<Map.Entry<String, Authority>> newestFirst = new ArrayList<>(authorities.entrySet());
    Collections.reverse(newestFirst);
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    int count = 0;
    try {
      for (Map.Entry<String, Authority> e : newestFirst) {
        byte[] one = encode(e.getKey(), e.getValue(), nowMillis);
        if (one == null) {
          continue;
        }
        if (all.size() + one.length > MAX_STORED_BYTES - 5) {
          break;
        }
        all.write(one);
        count++;
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream(all.size() + 5);
      DataOutputStream data = new DataOutputStream(out);
      data.writeByte(FORMAT_VERSION);
      data.writeInt(count);
      all.writeTo(data);
      data.flush();
      return out.toByteArray();
    } catch (IOException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /** One authority's record, or null if a name in it is too long to be kept. */
  private byte[] encode(String authority, Authority a, long nowMillis) throws IOException {
    if (tooLong(authority) || tooLong(a.lastWorked)) {
      return null;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeUTF(authority);
    out.writeBoolean(a.lastWorked != null);
    if (a.lastWorked != null) {
      out.writeUTF(a.lastWorked);
      out.writeLong(a.lastConnectNanos);
      if (a.aheadOf == null) {
        out.writeInt(-1);
      } else {
        List<String> names = new ArrayList<>();
        for (String t : a.aheadOf) {
          if (!tooLong(t)) {
            names.add(t);
          }
        }
        out.writeInt(names.size());
        for (String t : names) {
          out.writeUTF(t);
        }
        out.writeInt(a.aheadCount);
        long left = a.aheadUntilNanos - ticker.getAsLong();
        out.writeLong(left <= 0 ? nowMillis : nowMillis + (left + 999_999) / 1_000_000);
      }
    }
    List<Map.Entry<String, Mark>> marks = new ArrayList<>();
    for (Map.Entry<String, Mark> m : a.marks.entrySet()) {
      if (!tooLong(m.getKey())) {
        marks.add(m);
      }
    }
    out.writeInt(marks.size());
    for (Map.Entry<String, Mark> m : marks) {
      out.writeUTF(m.getKey());
      out.writeInt(m.getValue().count);
      out.writeLong(untilMillis(m.getValue(), nowMillis));
    }
    List<Advertised> ads = new ArrayList<>();
    for (Advertised ad : a.advertised.values()) {
      if (ad.expiresAtMillis() > nowMillis && !tooLong(ad.transport()) && fits(ad.alternative())) {
        ads.add(ad);
      }
    }
    out.writeInt(ads.size());
    for (Advertised ad : ads) {
      AltSvc.Alternative alt = ad.alternative();
      out.writeUTF(ad.transport());
      out.writeUTF(alt.protocolId());
      out.writeUTF(alt.host());
      out.writeInt(alt.port());
      out.writeLong(alt.maxAgeSeconds());
      out.writeBoolean(alt.persist());
      out.writeLong(ad.expiresAtMillis());
      out.writeInt(alt.parameters().size());
      for (Map.Entry<String, String> p : alt.parameters().entrySet()) {
        out.writeUTF(p.getKey());
        out.writeUTF(p.getValue());
      }
    }
    out.flush();
    return bytes.toByteArray();
  }

  private static boolean tooLong(String name) {
    return name != null && name.length() > MAX_STORED_NAME;
  }

  /** Whether every string of {@code alt} is short enough to be written. */
  private static boolean fits(AltSvc.Alternative alt) {
    if (tooLong(alt.protocolId()) || tooLong(alt.host())) {
      return false;
    }
    for (Map.Entry<String, String> p : alt.parameters().entrySet()) {
      if (tooLong(p.getKey()) || tooLong(p.getValue())) {
        return false;
      }
    }
    return true;
  }

  /** Reads what the store holds; anything unreadable is ignored with a warning. */
  private void load() {
    byte[] bytes;
    long now = wallClock.getAsLong();
    try {
      bytes = store.get(STORE_SERVER, STORE_KIND, now);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "transport memory: could not read its session store; starting empty",
          e);
      return;
    }
    if (bytes == null) {
      return;
    }
    Map<String, Authority> read = new LinkedHashMap<>();
    String why;
    try {
      why = decode(bytes, now, read);
    } catch (EOFException e) {
      why = "it is cut short";
    } catch (IOException | RuntimeException e) {
      why = "it cannot be read (" + e + ")";
    }
    if (why != null) {
      LOG.warning("transport memory: starting empty; what its session store holds is ignored"
          + " because " + why);
      return;
    }
    List<Map.Entry<String, Authority>> oldestFirst = new ArrayList<>(read.entrySet());
    Collections.reverse(oldestFirst);
    synchronized (this) {
      for (Map.Entry<String, Authority> e : oldestFirst) {
        authorities.put(e.getKey(), e.getValue());
      }
    }
  }

  /** Fills {@code into} from {@code bytes} (see {@link #encode}), or says why it cannot. */
  private String decode(byte[] bytes, long nowMillis, Map<String, Authority> into)
      throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    int version = in.readUnsignedByte();
    if (version != FORMAT_VERSION && version != 1) {
      return "its format version is " + version + ", not " + FORMAT_VERSION;
    }
    int count = in.readInt();
    if (count < 0 || count > MAX_AUTHORITIES) {
      return "it counts " + count + " authorities";
    }
    long tick = ticker.getAsLong();
    for (int i = 0; i < count; i++) {
      String authority = in.readUTF();
      Authority a = new Authority();
      if (in.readBoolean()) {
        a.lastWorked = in.readUTF();
        a.lastConnectNanos = in.readLong();
        int ahead = in.readInt();
        if (a.lastConnectNanos < 0 || ahead < -1 || ahead > bytes.length) {
          return "an entry of " + authority + " is out of range";
        }
        if (ahead >= 0) {
          a.aheadOf = new LinkedHashSet<>();
          for (int j = 0; j < ahead; j++) {
            a.aheadOf.add(in.readUTF());
          }
          if (version == 1) {
            // Written before precedence expired: it lasts one mark from now.
            a.aheadCount = 1;
            a.aheadUntilNanos = tick + initialBrokenNanos;
          } else {
            a.aheadCount = in.readInt();
            long leftMillis = in.readLong() - nowMillis;
            if (a.aheadCount < 0) {
              return "an entry of " + authority + " is out of range";
            }
            a.aheadUntilNanos = tick + (leftMillis <= 0 ? 0
                : leftMillis >= maxBrokenNanos / 1_000_000 ? maxBrokenNanos : leftMillis * 1_000_000);
          }
        }
      }
      int marks = in.readInt();
      if (marks < 0 || marks > bytes.length) {
        return "an entry of " + authority + " is out of range";
      }
      for (int j = 0; j < marks; j++) {
        String transport = in.readUTF();
        Mark m = new Mark();
        m.count = in.readInt();
        long leftMillis = in.readLong() - nowMillis;
        if (m.count < 1) {
          return "a mark of " + authority + " is out of range";
        }
        // What is left of the mark, on this run's clock; never more than a mark can last (the
        // wall clock may have been set back since it was written).
        long left = leftMillis <= 0 ? 0
            : leftMillis >= maxBrokenNanos / 1_000_000 ? maxBrokenNanos : leftMillis * 1_000_000;
        m.untilNanos = tick + left;
        a.marks.put(transport, m);
      }
      int ads = version == 1 ? 0 : in.readInt();
      if (ads < 0 || ads > AltSvc.MAX_ALTERNATIVES) {
        return "an entry of " + authority + " is out of range";
      }
      for (int j = 0; j < ads; j++) {
        String transport = in.readUTF();
        String protocolId = in.readUTF();
        String host = in.readUTF();
        int port = in.readInt();
        long maxAge = in.readLong();
        boolean persist = in.readBoolean();
        long expires = in.readLong();
        int params = in.readInt();
        if (port < 1 || port > 65535 || maxAge < 0 || params < 0 || params > 32) {
          return "an advertisement of " + authority + " is out of range";
        }
        Map<String, String> p = new LinkedHashMap<>();
        for (int k = 0; k < params; k++) {
          p.put(in.readUTF(), in.readUTF());
        }
        if (expires > nowMillis) {
          // Never fresher than its max-age from now (the wall clock may have been set back).
          long capped = Math.min(expires, nowMillis + Math.min(maxAge, Integer.MAX_VALUE) * 1000L);
          a.advertised.put(transport, new Advertised(transport,
              new AltSvc.Alternative(protocolId, host, port, maxAge, persist, p), capped));
        }
      }
      if (into.put(authority, a) != null) {
        return authority + " is there twice";
      }
    }
    if (in.available() > 0) {
      return "bytes follow the last authority";
    }
    return null;
  }

  /** Builds a {@link TransportMemory}. */
  public static final class Builder {
    private LongSupplier ticker = System::nanoTime;
    private LongSupplier wallClock = System::currentTimeMillis;
    private long initialBrokenNanos = TimeUnit.MINUTES.toNanos(5);
    private long maxBrokenNanos = TimeUnit.DAYS.toNanos(2);
    private SessionStore store;

    private Builder() {}

    /**
     * Keeps the memory in {@code store} as well, so that what it learned survives a restart of
     * the application when the store is backed by a file ({@code SessionStores.file(path,
     * maxEntries)}): the memory starts with what the store holds and writes it back after every
     * change that matters. It takes one entry (server {@code "*"}, kind {@code
     * "transport.memory"}) of at most 256 KiB, the least recently used authorities left out past
     * that. The store may be the one the channels' transports keep their tickets in ({@code
     * TransportOptions.SESSION_STORE}), or a file of its own. A store whose entry cannot be read
     * (another format, cut short) is ignored with a WARNING logged, and overwritten at the next
     * change. By default a memory is kept in the process only.
     *
     * @param store the store to read at {@link #build()} and write on every change
     * @return this builder
     * @throws NullPointerException if {@code store} is null
     */
    public Builder sessionStore(SessionStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * The wall clock a {@linkplain #sessionStore stored} memory writes the end of each broken mark
     * in, so that a restart honours what is left of it; tests pass a fake one.
     *
     * @param millisClock returns the time in milliseconds since the Unix epoch, as {@link
     *     System#currentTimeMillis()} (the default)
     * @return this builder
     * @throws NullPointerException if {@code millisClock} is null
     */
    public Builder wallClock(LongSupplier millisClock) {
      wallClock = Objects.requireNonNull(millisClock, "millisClock");
      return this;
    }

    /**
     * The clock marks are timed by; tests pass a fake one to step time by hand.
     *
     * @param nanoTicker returns the time in nanoseconds, as {@link System#nanoTime()} (the
     *     default) counts them: only differences matter
     * @return this builder
     * @throws NullPointerException if {@code nanoTicker} is null
     */
    public Builder ticker(LongSupplier nanoTicker) {
      ticker = Objects.requireNonNull(nanoTicker, "nanoTicker");
      return this;
    }

    /**
     * How long a first broken mark lasts (default 5 minutes). If this is longer than the cap,
     * the cap is raised to it.
     *
     * @param value the duration in {@code unit}s; greater than 0
     * @param unit the unit of {@code value}
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is not positive
     */
    public Builder initialBrokenDuration(long value, TimeUnit unit) {
      if (value <= 0) {
        throw new IllegalArgumentException("initial broken duration must be > 0, was " + value);
      }
      initialBrokenNanos = unit.toNanos(value);
      maxBrokenNanos = Math.max(maxBrokenNanos, initialBrokenNanos);
      return this;
    }

    /**
     * The longest a mark lasts however often it was renewed (default 2 days). If this is shorter
     * than the initial duration, the initial duration is lowered to it.
     *
     * @param value the duration in {@code unit}s; greater than 0
     * @param unit the unit of {@code value}
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is not positive
     */
    public Builder maxBrokenDuration(long value, TimeUnit unit) {
      if (value <= 0) {
        throw new IllegalArgumentException("max broken duration must be > 0, was " + value);
      }
      maxBrokenNanos = unit.toNanos(value);
      initialBrokenNanos = Math.min(initialBrokenNanos, maxBrokenNanos);
      return this;
    }

    /**
     * Builds the memory: empty, or with what its {@linkplain #sessionStore store} holds.
     *
     * @return a new memory with this builder's clocks, durations and store
     */
    public TransportMemory build() {
      return new TransportMemory(this);
    }
  }
}
