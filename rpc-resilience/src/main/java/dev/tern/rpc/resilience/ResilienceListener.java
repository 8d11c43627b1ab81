package dev.tern.rpc.resilience;

import io.grpc.Status;
import java.time.Duration;

/**
 * Hears what the resilience module does, for metrics and logs: fed by resilience4j's event
 * publishers (each method's {@code Retry}, each transport's {@code CircuitBreaker}) and by the
 * hedging calls. Every method has an empty default; implement the ones wanted. Called on the
 * thread where the event happened (a transport or timer thread): return quickly, never throw.
 */
public interface ResilienceListener {
  /** Hears nothing. */
  ResilienceListener NONE = new ResilienceListener() { };

  /**
   * An attempt failed with a retryable status and another will be made after {@code wait}.
   *
   * @param method the full method name, {@code pkg.Service/Method}
   * @param retry the retry's number: 1 for the second attempt
   * @param wait how long the call waits before the retry
   * @param status the failed attempt's status
   */
  default void retryScheduled(String method, int retry, Duration wait, Status status) {}

  /**
   * A call that was retried succeeded.
   *
   * @param method the full method name
   * @param retries how many retries it took
   */
  default void succeededAfterRetries(String method, int retries) {}

  /**
   * A call failed after its last allowed attempt (or when its wait would have passed the
   * deadline); the call ends with {@code status}.
   *
   * @param method the full method name
   * @param attempts how many attempts were made
   * @param status the last attempt's status
   */
  default void retriesExhausted(String method, int attempts, Status status) {}

  /**
   * An attempt failed and was not retried: its code is not retryable, the server's pushback
   * forbade it, the throttle stopped it, or the call was committed.
   *
   * @param method the full method name
   * @param status the attempt's status
   * @param why why no retry followed
   */
  default void notRetried(String method, Status status, String why) {}

  /**
   * A hedged copy of a call was sent.
   *
   * @param method the full method name
   * @param attempt the copy's number: 1 for the second copy
   */
  default void hedgeSent(String method, int attempt) {}

  /**
   * A transport's circuit breaker changed state.
   *
   * @param authority the channel's authority
   * @param transport the transport's name
   * @param from the state before ({@code CLOSED}, {@code OPEN}, {@code HALF_OPEN}, ...: the names
   *     of resilience4j's {@code CircuitBreaker.State})
   * @param to the state now
   */
  default void breakerStateChanged(String authority, String transport, String from, String to) {}

  /**
   * A transport's circuit breaker recorded an attempt's outcome.
   *
   * @param authority the channel's authority
   * @param transport the transport's name
   * @param failed true if the attempt failed in a way that counts against the transport
   *     (UNAVAILABLE, or no response before a deadline or per-attempt timeout)
   * @param duration how long the attempt took
   */
  default void breakerCallRecorded(String authority, String transport, boolean failed, Duration duration) {}
}
