package dev.tern.rpc;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What channels learned about transports, per server authority: which transport last worked, and
 * which are marked broken and until when.
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
 */
public final class TransportMemory {
  /** How many authorities one memory holds before forgetting the least recently used. */
  public static final int MAX_AUTHORITIES = 1024;

  private static final TransportMemory SHARED = builder().build();

  private final LongSupplier ticker;
  private final long initialBrokenNanos;
  private final long maxBrokenNanos;
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
    final Map<String, Mark> marks = new HashMap<>();
  }

  /** One transport's broken mark: how many times in a row it was marked, and until when. */
  private static final class Mark {
    int count;
    long untilNanos;
  }

  private TransportMemory(Builder b) {
    this.ticker = b.ticker;
    this.initialBrokenNanos = b.initialBrokenNanos;
    this.maxBrokenNanos = b.maxBrokenNanos;
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
  public synchronized void markBroken(String authority, String transport) {
    Authority a = authorities.computeIfAbsent(Objects.requireNonNull(authority, "authority"),
        k -> new Authority());
    Mark m = a.marks.computeIfAbsent(Objects.requireNonNull(transport, "transport"), k -> new Mark());
    long duration = initialBrokenNanos;
    for (int i = 0; i < m.count && duration < maxBrokenNanos; i++) {
      duration = duration > maxBrokenNanos / 2 ? maxBrokenNanos : duration * 2;
    }
    m.count++;
    m.untilNanos = ticker.getAsLong() + Math.min(duration, maxBrokenNanos);
    if (transport.equals(a.lastWorked)) {
      a.lastWorked = null;
      a.aheadOf = null;
    }
  }

  /**
   * Records that {@code transport} connected to {@code authority}, with no connect time known:
   * clears its marks and makes it the one that last worked, tried first next time.
   *
   * @param authority the server authority, {@code host[:port]} as the channel names it
   * @param transport the transport's name, as its provider gives it
   * @throws NullPointerException if an argument is null
   */
  public synchronized void markWorked(String authority, String transport) {
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
  public synchronized void markWorked(String authority, String transport, long connectNanos) {
    worked(authority, transport, connectNanos, null);
  }

  /**
   * Records that {@code transport} won a race to {@code authority} in {@code connectNanos}, while
   * the transports {@code beat} were still connecting: it will be tried ahead of those (and of
   * those it was already tried ahead of, if it won last time too), but not ahead of a transport
   * that was not in the race, such as one a broken mark or a circuit breaker left out.
   */
  synchronized void markWon(String authority, String transport, long connectNanos,
      Collection<String> beat) {
    Authority a = authorities.get(Objects.requireNonNull(authority, "authority"));
    Set<String> ahead = new LinkedHashSet<>(beat);
    if (a != null && transport.equals(a.lastWorked)) {
      if (a.aheadOf == null) {
        ahead = null;
      } else {
        ahead.addAll(a.aheadOf);
      }
    }
    if (ahead != null) {
      ahead.remove(transport);
    }
    worked(authority, transport, connectNanos, ahead);
  }

  private void worked(String authority, String transport, long connectNanos, Set<String> aheadOf) {
    if (connectNanos < 0) {
      throw new IllegalArgumentException("connectNanos must be >= 0: " + connectNanos);
    }
    Authority a = authorities.computeIfAbsent(Objects.requireNonNull(authority, "authority"),
        k -> new Authority());
    a.marks.remove(Objects.requireNonNull(transport, "transport"));
    a.lastWorked = transport;
    a.lastConnectNanos = connectNanos;
    a.aheadOf = aheadOf;
  }

  /**
   * Whether {@code transport}, the one that last worked for {@code authority}, may be tried ahead
   * of {@code other}: it beat {@code other} (or was recorded from outside a race), and {@code
   * other} has no broken mark, not even an expired one (when a mark expires, the transport it
   * kept out races again in its place).
   */
  synchronized boolean mayGoAhead(String authority, String transport, String other) {
    Authority a = authorities.get(authority);
    return a != null && transport.equals(a.lastWorked) && !a.marks.containsKey(other)
        && (a.aheadOf == null || a.aheadOf.contains(other));
  }

  /**
   * Forgets every mark and every transport that worked, for every authority: the device is on
   * another network now, where what was learned may no longer hold. Connections already made are
   * not touched; the next connect of each channel races again.
   */
  public synchronized void networkChanged() {
    authorities.clear();
  }

  /** Builds a {@link TransportMemory}. */
  public static final class Builder {
    private LongSupplier ticker = System::nanoTime;
    private long initialBrokenNanos = TimeUnit.MINUTES.toNanos(5);
    private long maxBrokenNanos = TimeUnit.DAYS.toNanos(2);

    private Builder() {}

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
     * Builds the memory; it starts empty.
     *
     * @return a new memory with this builder's clock and durations
     */
    public TransportMemory build() {
      return new TransportMemory(this);
    }
  }
}
