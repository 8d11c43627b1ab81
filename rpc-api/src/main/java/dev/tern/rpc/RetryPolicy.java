package dev.tern.rpc;

import io.grpc.Status;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A method's retry policy from the channel's service config (grpc's {@code retryPolicy} in a
 * {@code methodConfig}), as the channel hands it to each call in {@link
 * TernCallOptions#RETRY_POLICY}: up to {@link #maxAttempts()} attempts, each retry after a random
 * delay of up to {@code min(initialBackoff * backoffMultiplier^(n-1), maxBackoff)}, when the call
 * fails with one of {@link #retryableStatusCodes()}.
 *
 * <p>The channel only parses and hands on the policy; the resilience module ({@code
 * rpc-resilience}) carries it out. Immutable.
 */
public final class RetryPolicy {
  private final int maxAttempts;
  private final long initialBackoffNanos;
  private final long maxBackoffNanos;
  private final double backoffMultiplier;
  private final Long perAttemptRecvTimeoutNanos;
  private final Set<Status.Code> retryableStatusCodes;

  private RetryPolicy(int maxAttempts, long initialBackoffNanos, long maxBackoffNanos,
      double backoffMultiplier, Long perAttemptRecvTimeoutNanos, Set<Status.Code> retryableStatusCodes) {
    this.maxAttempts = maxAttempts;
    this.initialBackoffNanos = initialBackoffNanos;
    this.maxBackoffNanos = maxBackoffNanos;
    this.backoffMultiplier = backoffMultiplier;
    this.perAttemptRecvTimeoutNanos = perAttemptRecvTimeoutNanos;
    this.retryableStatusCodes = retryableStatusCodes;
  }

  /**
   * A retry policy, checked as grpc-java checks a service config's.
   *
   * @param maxAttempts most attempts, the first included; 2 or more (the channel has already
   *     capped it by its {@code maxRetryAttempts})
   * @param initialBackoffNanos the delay bound before the first retry, in nanoseconds; more than 0
   * @param maxBackoffNanos the largest delay bound, in nanoseconds; more than 0
   * @param backoffMultiplier what the delay bound is multiplied by after each retry; more than 0
   * @param perAttemptRecvTimeoutNanos how long one attempt may wait for the server's response
   *     headers, in nanoseconds, 0 or more; null for no limit per attempt
   * @param retryableStatusCodes the codes a failed attempt is retried on; not null, without {@code
   *     OK}; empty only with a {@code perAttemptRecvTimeoutNanos}
   * @return the policy
   * @throws IllegalArgumentException naming the field, if a value is out of its range
   * @throws NullPointerException if {@code retryableStatusCodes} or one of its elements is null
   */
  public static RetryPolicy of(int maxAttempts, long initialBackoffNanos, long maxBackoffNanos,
      double backoffMultiplier, Long perAttemptRecvTimeoutNanos, Set<Status.Code> retryableStatusCodes) {
    Objects.requireNonNull(retryableStatusCodes, "retryableStatusCodes");
    if (maxAttempts < 2) {
      throw new IllegalArgumentException("maxAttempts must be 2 or more, was " + maxAttempts);
    }
    if (initialBackoffNanos <= 0) {
      throw new IllegalArgumentException("initialBackoff must be more than 0, was " + initialBackoffNanos + " ns");
    }
    if (maxBackoffNanos <= 0) {
      throw new IllegalArgumentException("maxBackoff must be more than 0, was " + maxBackoffNanos + " ns");
    }
    if (!(backoffMultiplier > 0) || Double.isInfinite(backoffMultiplier)) {
      throw new IllegalArgumentException("backoffMultiplier must be a finite number more than 0, was "
          + backoffMultiplier);
    }
    if (perAttemptRecvTimeoutNanos != null && perAttemptRecvTimeoutNanos < 0) {
      throw new IllegalArgumentException("perAttemptRecvTimeout must be 0 or more, was "
          + perAttemptRecvTimeoutNanos + " ns");
    }
    Set<Status.Code> codes = StatusCodes.copyWithoutOk(retryableStatusCodes, "retryableStatusCodes");
    if (codes.isEmpty() && perAttemptRecvTimeoutNanos == null) {
      throw new IllegalArgumentException("retryableStatusCodes must not be empty without perAttemptRecvTimeout");
    }
    return new RetryPolicy(maxAttempts, initialBackoffNanos, maxBackoffNanos, backoffMultiplier,
        perAttemptRecvTimeoutNanos, codes);
  }

  /**
   * Most attempts of a call, the first included, after the channel's {@code maxRetryAttempts} cap.
   *
   * @return 2 or more
   */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * The bound of the random delay before the first retry.
   *
   * @return nanoseconds, more than 0
   */
  public long initialBackoffNanos() {
    return initialBackoffNanos;
  }

  /**
   * The largest bound of the random delay before a retry.
   *
   * @return nanoseconds, more than 0
   */
  public long maxBackoffNanos() {
    return maxBackoffNanos;
  }

  /**
   * What the delay bound is multiplied by after each retry.
   *
   * @return a finite number more than 0
   */
  public double backoffMultiplier() {
    return backoffMultiplier;
  }

  /**
   * How long one attempt may wait for the server's response headers before it is given up and
   * retried (grpc's {@code perAttemptRecvTimeout}).
   *
   * @return nanoseconds, 0 or more; empty if attempts have no limit of their own
   */
  public OptionalLong perAttemptRecvTimeoutNanos() {
    return perAttemptRecvTimeoutNanos == null ? OptionalLong.empty() : OptionalLong.of(perAttemptRecvTimeoutNanos);
  }

  /**
   * The status codes a failed attempt is retried on.
   *
   * @return an unmodifiable set, never containing {@code OK}
   */
  public Set<Status.Code> retryableStatusCodes() {
    return retryableStatusCodes;
  }

  /**
   * Whether {@code other} is a retry policy with the same values.
   *
   * @param other the object to compare with
   * @return true if every value is equal
   */
  @Override
  public boolean equals(Object other) {
    if (!(other instanceof RetryPolicy)) {
      return false;
    }
    RetryPolicy that = (RetryPolicy) other;
    return maxAttempts == that.maxAttempts && initialBackoffNanos == that.initialBackoffNanos
        && maxBackoffNanos == that.maxBackoffNanos
        && Double.compare(backoffMultiplier, that.backoffMultiplier) == 0
        && Objects.equals(perAttemptRecvTimeoutNanos, that.perAttemptRecvTimeoutNanos)
        && retryableStatusCodes.equals(that.retryableStatusCodes);
  }

  /**
   * A hash of every value, consistent with {@link #equals(Object)}.
   *
   * @return the hash code
   */
  @Override
  public int hashCode() {
    return Objects.hash(maxAttempts, initialBackoffNanos, maxBackoffNanos, backoffMultiplier,
        perAttemptRecvTimeoutNanos, retryableStatusCodes);
  }

  /**
   * The values, for logs.
   *
   * @return {@code RetryPolicy{maxAttempts=3, initialBackoff=0.1s, ...}}
   */
  @Override
  public String toString() {
    return "RetryPolicy{maxAttempts=" + maxAttempts + ", initialBackoff=" + StatusCodes.seconds(initialBackoffNanos)
        + ", maxBackoff=" + StatusCodes.seconds(maxBackoffNanos) + ", backoffMultiplier=" + backoffMultiplier
        + (perAttemptRecvTimeoutNanos == null ? ""
            : ", perAttemptRecvTimeout=" + StatusCodes.seconds(perAttemptRecvTimeoutNanos))
        + ", retryableStatusCodes=" + retryableStatusCodes + '}';
  }

  /** Status-code sets and durations shared by the two policies. */
  static final class StatusCodes {
    private StatusCodes() {}

    /** An unmodifiable copy of {@code codes}, refusing {@code OK} (which is never a failure). */
    static Set<Status.Code> copyWithoutOk(Set<Status.Code> codes, String field) {
      EnumSet<Status.Code> copy = EnumSet.noneOf(Status.Code.class);
      for (Status.Code c : codes) {
        copy.add(Objects.requireNonNull(c, field + " element"));
      }
      if (copy.contains(Status.Code.OK)) {
        throw new IllegalArgumentException(field + " must not contain OK");
      }
      return Collections.unmodifiableSet(copy);
    }

    /** {@code nanos} as a proto JSON duration: 1.5s. */
    static String seconds(long nanos) {
      return java.math.BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString() + "s";
    }
  }
}
