package dev.tern.rpc;

import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;

/**
 * Tern's {@link CallOptions} keys: a call's priority, whether it may travel as 0-RTT early data,
 * and the retry or hedging policy the channel's service config gives it.
 *
 * <pre>{@code
 * stub.withOption(TernCallOptions.PRIORITY, Priority.of(1, false)).getFeed(request);
 * }</pre>
 */
public final class TernCallOptions {
  /**
   * The call's priority (RFC 9218 urgency and incremental flag). Unset (null): the default
   * registered for the method in {@link TernMethodOptions}, else {@link Priority#DEFAULT}.
   */
  public static final CallOptions.Key<Priority> PRIORITY =
      CallOptions.Key.createWithDefault("tern.priority", null);

  /**
   * Whether the call may be sent as 0-RTT early data (which an attacker can replay). Unset (null):
   * only methods whose {@link MethodDescriptor#isIdempotent()} is true.
   */
  public static final CallOptions.Key<Boolean> ALLOW_EARLY_DATA =
      CallOptions.Key.createWithDefault("tern.allowEarlyData", null);

  /**
   * The call's retry policy: set by the channel from its service config ({@code retryPolicy} of the
   * method's {@code methodConfig}, capped by the builder's {@code maxRetryAttempts}), replacing a
   * value the call carried; unset (null) if the method has none. The channel itself does not retry
   * (beyond grpc-java's transparent retry of a stream refused unprocessed): the resilience module,
   * whose entry point is {@code dev.tern.rpc.resilience.TernResilience}, reads this key and carries
   * the policy out. Without that class on the class path the policy is ignored, and the channel
   * logs so once, at WARNING.
   */
  public static final CallOptions.Key<RetryPolicy> RETRY_POLICY =
      CallOptions.Key.createWithDefault("tern.retryPolicy", null);

  /**
   * The call's hedging policy: set by the channel from its service config ({@code hedgingPolicy} of
   * the method's {@code methodConfig}, capped by the builder's {@code maxHedgedAttempts}), replacing
   * a value the call carried; unset (null) if the method has none. As for {@link #RETRY_POLICY},
   * the resilience module ({@code dev.tern.rpc.resilience.TernResilience}) carries it out; without
   * it on the class path the policy is ignored, and the channel logs so once, at WARNING.
   */
  public static final CallOptions.Key<HedgingPolicy> HEDGING_POLICY =
      CallOptions.Key.createWithDefault("tern.hedgingPolicy", null);

  private TernCallOptions() {}

  /**
   * {@code options} with the priority set.
   *
   * @param options the options to start from; not changed
   * @param urgency 0 (most urgent) to 7 (least urgent)
   * @param incremental whether the call's data may be interleaved with other calls of the same
   *     urgency
   * @return a copy of {@code options} with {@link #PRIORITY} set
   * @throws IllegalArgumentException if {@code urgency} is outside 0..7
   */
  public static CallOptions withPriority(CallOptions options, int urgency, boolean incremental) {
    return options.withOption(PRIORITY, Priority.of(urgency, incremental));
  }

  /**
   * {@code options} allowing (or forbidding) early data regardless of idempotency.
   *
   * @param options the options to start from; not changed
   * @param allowed true to let the call go as 0-RTT early data, false to forbid it
   * @return a copy of {@code options} with {@link #ALLOW_EARLY_DATA} set
   */
  public static CallOptions withEarlyData(CallOptions options, boolean allowed) {
    return options.withOption(ALLOW_EARLY_DATA, allowed);
  }

  /**
   * The priority a call with {@code options} to {@code method} gets: the call's own, else the
   * method's registered default, else {@link Priority#DEFAULT}.
   *
   * @param options the call's options
   * @param method the method called
   * @return the priority, never null
   */
  public static Priority effectivePriority(CallOptions options, MethodDescriptor<?, ?> method) {
    Priority p = options.getOption(PRIORITY);
    if (p == null) {
      p = TernMethodOptions.defaultPriority(method.getFullMethodName());
    }
    return p == null ? Priority.DEFAULT : p;
  }

  /**
   * Whether a call with {@code options} to {@code method} may go as early data: as
   * {@link #ALLOW_EARLY_DATA} says, else only if the method is idempotent or safe (its descriptor's
   * {@code isIdempotent()} or {@code isSafe()}: grpc's generator marks {@code NO_SIDE_EFFECTS}
   * methods safe, {@code IDEMPOTENT} ones idempotent).
   *
   * @param options the call's options
   * @param method the method called
   * @return true if the call may be sent as 0-RTT early data
   */
  public static boolean effectiveEarlyData(CallOptions options, MethodDescriptor<?, ?> method) {
    Boolean allowed = options.getOption(ALLOW_EARLY_DATA);
    return allowed == null ? EarlyData.replaySafe(method) : allowed;
  }
}
