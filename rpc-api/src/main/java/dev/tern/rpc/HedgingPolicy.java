package dev.tern.rpc;

import io.grpc.Status;
import java.util.Objects;
import java.util.Set;

/**
 * A method's hedging policy from the channel's service config (grpc's {@code hedgingPolicy} in a
 * {@code methodConfig}), as the channel hands it to each call in {@link
 * TernCallOptions#HEDGING_POLICY}: up to {@link #maxAttempts()} copies of the call are sent, one
 * more every {@link #hedgingDelayNanos()} until one succeeds or fails with a code not in {@link
 * #nonFatalStatusCodes()}.
 *
 * <p>The channel only parses and hands on the policy; the resilience module ({@code
 * rpc-resilience}) carries it out. Immutable.
 */
public final class HedgingPolicy {
  private final int maxAttempts;
  private final long hedgingDelayNanos;
  private final Set<Status.Code> nonFatalStatusCodes;

  private HedgingPolicy(int maxAttempts, long hedgingDelayNanos, Set<Status.Code> nonFatalStatusCodes) {
    this.maxAttempts = maxAttempts;
    this.hedgingDelayNanos = hedgingDelayNanos;
    this.nonFatalStatusCodes = nonFatalStatusCodes;
  }

  /**
   * A hedging policy, checked as grpc-java checks a service config's.
   *
   * @param maxAttempts most copies of the call, the first included; 2 or more (the channel has
   *     already capped it by its {@code maxHedgedAttempts})
   * @param hedgingDelayNanos the delay between one copy and the next, in nanoseconds; 0 or more
   * @param nonFatalStatusCodes the codes with which a failed copy lets the others go on; not null,
   *     without {@code OK}; may be empty
   * @return the policy
   * @throws IllegalArgumentException naming the field, if a value is out of its range
   * @throws NullPointerException if {@code nonFatalStatusCodes} or one of its elements is null
   */
  public static HedgingPolicy of(int maxAttempts, long hedgingDelayNanos, Set<Status.Code> nonFatalStatusCodes) {
    Objects.requireNonNull(nonFatalStatusCodes, "nonFatalStatusCodes");
    if (maxAttempts < 2) {
      throw new IllegalArgumentException("maxAttempts must be 2 or more, was " + maxAttempts);
    }
    if (hedgingDelayNanos < 0) {
      throw new IllegalArgumentException("hedgingDelay must be 0 or more, was " + hedgingDelayNanos + " ns");
    }
    return new HedgingPolicy(maxAttempts, hedgingDelayNanos,
        RetryPolicy.StatusCodes.copyWithoutOk(nonFatalStatusCodes, "nonFatalStatusCodes"));
  }

  /**
   * Most copies of a call, the first included, after the channel's {@code maxHedgedAttempts} cap.
   *
   * @return 2 or more
   */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * The delay between sending one copy of the call and the next.
   *
   * @return nanoseconds, 0 or more (0: every copy at once)
   */
  public long hedgingDelayNanos() {
    return hedgingDelayNanos;
  }

  /**
   * The status codes with which a failed copy lets the other copies go on; any other code ends
   * the call.
   *
   * @return an unmodifiable set, never containing {@code OK}; may be empty
   */
  public Set<Status.Code> nonFatalStatusCodes() {
    return nonFatalStatusCodes;
  }

  /**
   * Whether {@code other} is a hedging policy with the same values.
   *
   * @param other the object to compare with
   * @return true if every value is equal
   */
  @Override
  public boolean equals(Object other) {
    if (!(other instanceof HedgingPolicy)) {
      return false;
    }
    HedgingPolicy that = (HedgingPolicy) other;
    return maxAttempts == that.maxAttempts && hedgingDelayNanos == that.hedgingDelayNanos
        && nonFatalStatusCodes.equals(that.nonFatalStatusCodes);
  }

  /**
   * A hash of every value, consistent with {@link #equals(Object)}.
   *
   * @return the hash code
   */
  @Override
  public int hashCode() {
    return Objects.hash(maxAttempts, hedgingDelayNanos, nonFatalStatusCodes);
  }

  /**
   * The values, for logs.
   *
   * @return {@code HedgingPolicy{maxAttempts=3, hedgingDelay=0.5s, nonFatalStatusCodes=[...]}}
   */
  @Override
  public String toString() {
    return "HedgingPolicy{maxAttempts=" + maxAttempts + ", hedgingDelay="
        + RetryPolicy.StatusCodes.seconds(hedgingDelayNanos) + ", nonFatalStatusCodes=" + nonFatalStatusCodes + '}';
  }
}
