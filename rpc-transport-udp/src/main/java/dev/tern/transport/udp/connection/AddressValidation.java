package dev.tern.transport.udp.connection;

import java.util.function.LongSupplier;

/**
 * A server's address validation and handshake limits (docs/protocol.md §9.8, §9.9; RFC 9000
 * §8.1): when it answers a client's first INITIAL with a Retry, how many handshakes it runs at
 * once, how long its tokens live, and the clock their issue times come from. Immutable; the
 * {@code with} methods return a changed copy.
 */
public final class AddressValidation {
  /** When a server answers an INITIAL without a valid token with a Retry (RFC 9000 §8.1.2). */
  public enum RetryPolicy {
    /** Never: every client is validated by its handshake (or a NEW_TOKEN token). */
    NEVER,
    /** Always: no state for a client before it proves its address. */
    ALWAYS,
    /** When the handshakes in progress reach {@link #retryAboveHandshakes()}: under load. */
    WHEN_BUSY
  }

  private final RetryPolicy retryPolicy;
  private final int retryAboveHandshakes;
  private final int maxHandshakes;
  private final long retryTokenLifetimeMs;
  private final long newTokenLifetimeMs;
  private final boolean sendNewTokens;
  private final LongSupplier clockMs;

  private AddressValidation(RetryPolicy retryPolicy, int retryAboveHandshakes, int maxHandshakes,
      long retryTokenLifetimeMs, long newTokenLifetimeMs, boolean sendNewTokens,
      LongSupplier clockMs) {
    this.retryPolicy = retryPolicy;
    this.retryAboveHandshakes = retryAboveHandshakes;
    this.maxHandshakes = maxHandshakes;
    this.retryTokenLifetimeMs = retryTokenLifetimeMs;
    this.newTokenLifetimeMs = newTokenLifetimeMs;
    this.sendNewTokens = sendNewTokens;
    this.clockMs = clockMs;
  }

  /**
   * The defaults: Retry when 64 handshakes are in progress, at most 1,024 in progress, Retry
   * tokens valid 5 s, NEW_TOKEN tokens a day, NEW_TOKEN sent, the system's clock.
   */
  public static AddressValidation defaults() {
    return new AddressValidation(RetryPolicy.WHEN_BUSY, 64, 1024, 5_000, 86_400_000L, true,
        System::currentTimeMillis);
  }

  /** With another Retry policy. */
  public AddressValidation withRetryPolicy(RetryPolicy policy) {
    if (policy == null) {
      throw new IllegalArgumentException("retry policy must not be null");
    }
    return new AddressValidation(policy, retryAboveHandshakes, maxHandshakes,
        retryTokenLifetimeMs, newTokenLifetimeMs, sendNewTokens, clockMs);
  }

  /** With {@link RetryPolicy#WHEN_BUSY} retrying once {@code n} handshakes are in progress. */
  public AddressValidation withRetryAboveHandshakes(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("retryAboveHandshakes must be >= 0: " + n);
    }
    return new AddressValidation(retryPolicy, n, maxHandshakes, retryTokenLifetimeMs,
        newTokenLifetimeMs, sendNewTokens, clockMs);
  }

  /**
   * With at most {@code n} handshakes in progress (connections created and not yet confirmed);
   * a client beyond it is refused (CONNECTION_REFUSED).
   */
  public AddressValidation withMaxHandshakes(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("maxHandshakes must be >= 1: " + n);
    }
    return new AddressValidation(retryPolicy, retryAboveHandshakes, n, retryTokenLifetimeMs,
        newTokenLifetimeMs, sendNewTokens, clockMs);
  }

  /** With Retry tokens valid for {@code ms} after their issue. */
  public AddressValidation withRetryTokenLifetimeMs(long ms) {
    if (ms < 1) {
      throw new IllegalArgumentException("retryTokenLifetimeMs must be >= 1: " + ms);
    }
    return new AddressValidation(retryPolicy, retryAboveHandshakes, maxHandshakes, ms,
        newTokenLifetimeMs, sendNewTokens, clockMs);
  }

  /** With NEW_TOKEN tokens valid for {@code ms} after their issue. */
  public AddressValidation withNewTokenLifetimeMs(long ms) {
    if (ms < 1) {
      throw new IllegalArgumentException("newTokenLifetimeMs must be >= 1: " + ms);
    }
    return new AddressValidation(retryPolicy, retryAboveHandshakes, maxHandshakes,
        retryTokenLifetimeMs, ms, sendNewTokens, clockMs);
  }

  /** Whether the server sends a NEW_TOKEN frame once a handshake is confirmed. */
  public AddressValidation withSendNewTokens(boolean send) {
    return new AddressValidation(retryPolicy, retryAboveHandshakes, maxHandshakes,
        retryTokenLifetimeMs, newTokenLifetimeMs, send, clockMs);
  }

  /**
   * With the clock tokens are stamped and checked by, in ms since the epoch (the simulator's
   * virtual clock; instances sharing tokens need roughly agreeing clocks).
   */
  public AddressValidation withClockMs(LongSupplier clock) {
    if (clock == null) {
      throw new IllegalArgumentException("clock must not be null");
    }
    return new AddressValidation(retryPolicy, retryAboveHandshakes, maxHandshakes,
        retryTokenLifetimeMs, newTokenLifetimeMs, sendNewTokens, clock);
  }

  /** The Retry policy. */
  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  /** Handshakes in progress from which {@link RetryPolicy#WHEN_BUSY} retries. */
  public int retryAboveHandshakes() {
    return retryAboveHandshakes;
  }

  /** The most handshakes in progress. */
  public int maxHandshakes() {
    return maxHandshakes;
  }

  /** How long a Retry token is valid, ms. */
  public long retryTokenLifetimeMs() {
    return retryTokenLifetimeMs;
  }

  /** How long a NEW_TOKEN token is valid, ms. */
  public long newTokenLifetimeMs() {
    return newTokenLifetimeMs;
  }

  /** Whether NEW_TOKEN frames are sent. */
  public boolean sendNewTokens() {
    return sendNewTokens;
  }

  /** The time now, ms since the epoch. */
  public long nowMs() {
    return clockMs.getAsLong();
  }
}
