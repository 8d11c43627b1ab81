package dev.tern.rpc.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one channel's call policies (a {@code CallPolicyProvider} such as {@code
 * rpc-resilience}): retries, hedged copies, and the state of each transport's circuit breaker.
 * {@link TernMetrics#callPolicies(String)} makes one per channel scope; the policy module counts
 * into it from its events, and a metrics binding (rpc-micrometer) reads it. Thread-safe; counting is
 * a striped add.
 */
public final class CallPolicyMetrics {
  /** A circuit breaker's state, as resilience4j names its states. */
  public enum BreakerState {
    /** Calls flow; failures are counted. */
    CLOSED,
    /** The transport is kept out of the channel's races. */
    OPEN,
    /** The transport may race again; its next attempts decide. */
    HALF_OPEN;

    /**
     * The state for a name such as {@code CLOSED} or {@code HALF_OPEN} (resilience4j's), or null
     * for a state this enum does not have (resilience4j's {@code DISABLED}, {@code FORCED_OPEN}).
     *
     * @param name the state's name
     * @return the state, or null
     */
    public static BreakerState of(String name) {
      for (BreakerState s : values()) {
        if (s.name().equals(name)) {
          return s;
        }
      }
      return null;
    }
  }

  private final TernMetrics registry;
  private final String scope;
  private final LongAdder retries = new LongAdder();
  private final LongAdder succeededAfterRetries = new LongAdder();
  private final LongAdder retriesExhausted = new LongAdder();
  private final LongAdder notRetried = new LongAdder();
  private final LongAdder hedges = new LongAdder();
  private final Map<String, BreakerState> breakers = new LinkedHashMap<>();
  private final Map<String, LongAdder> opened = new LinkedHashMap<>();

  CallPolicyMetrics(TernMetrics registry, String scope) {
    this.registry = registry;
    this.scope = scope;
  }

  /**
   * The channel's name in the registry.
   *
   * @return the channel's name in the registry
   */
  public String scope() {
    return scope;
  }

  /** A failed attempt will be retried. */
  public void retryScheduled() {
    retries.increment();
  }

  /** A call succeeded after at least one retry. */
  public void succeededAfterRetries() {
    succeededAfterRetries.increment();
  }

  /** A call failed with every attempt its retry policy allows used. */
  public void retriesExhausted() {
    retriesExhausted.increment();
  }

  /** A failed attempt was not retried (its code, a pushback, the throttle, a committed call). */
  public void notRetried() {
    notRetried.increment();
  }

  /** A hedging policy sent one more copy of a call. */
  public void hedgeSent() {
    hedges.increment();
  }

  /**
   * {@code transport}'s circuit breaker is now in {@code state}.
   *
   * @param transport the transport's name
   * @param state its breaker's state
   */
  public void breakerState(String transport, BreakerState state) {
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(state, "state");
    boolean added;
    synchronized (breakers) {
      added = breakers.put(transport, state) == null;
      opened.computeIfAbsent(transport, t -> new LongAdder());
      if (state == BreakerState.OPEN) {
        opened.get(transport).increment();
      }
    }
    if (added) {
      registry.breakerSeen(this, transport);
    }
  }

  /**
   * Retries scheduled so far.
   *
   * @return retries scheduled so far
   */
  public long retriesScheduled() {
    return retries.sum();
  }

  /**
   * Calls that succeeded after a retry.
   *
   * @return calls that succeeded after a retry
   */
  public long callsSucceededAfterRetries() {
    return succeededAfterRetries.sum();
  }

  /**
   * Calls that failed with every attempt used.
   *
   * @return calls that failed with every attempt used
   */
  public long callsWithRetriesExhausted() {
    return retriesExhausted.sum();
  }

  /**
   * Failed attempts not retried.
   *
   * @return failed attempts not retried
   */
  public long attemptsNotRetried() {
    return notRetried.sum();
  }

  /**
   * Hedged copies sent (beyond each call's first).
   *
   * @return hedged copies sent
   */
  public long hedgesSent() {
    return hedges.sum();
  }

  /**
   * The state of {@code transport}'s breaker, or null if it has not been told of.
   *
   * @param transport the transport's name
   * @return its state, or null
   */
  public BreakerState breakerState(String transport) {
    synchronized (breakers) {
      return breakers.get(transport);
    }
  }

  /**
   * How many times {@code transport}'s breaker opened.
   *
   * @param transport the transport's name
   * @return times opened; 0 if never
   */
  public long breakerOpened(String transport) {
    synchronized (breakers) {
      LongAdder n = opened.get(transport);
      return n == null ? 0 : n.sum();
    }
  }

  /**
   * Every breaker's state, by transport; a copy.
   *
   * @return every breaker's state, by transport
   */
  public Map<String, BreakerState> breakerStates() {
    synchronized (breakers) {
      return Collections.unmodifiableMap(new LinkedHashMap<>(breakers));
    }
  }

  @Override
  public String toString() {
    return "CallPolicyMetrics{" + scope + ", retries=" + retriesScheduled() + ", hedges=" + hedgesSent()
        + ", breakers=" + breakerStates() + '}';
  }
}
