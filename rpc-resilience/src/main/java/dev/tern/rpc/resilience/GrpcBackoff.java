package dev.tern.rpc.resilience;

import dev.tern.rpc.RetryPolicy;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.functions.Either;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The interval function of a method's {@code Retry}: gRFC A6's backoff. The n-th retry since the
 * last pushback waits {@code random(0, min(initialBackoff * backoffMultiplier^(n-1), maxBackoff))}
 * (full jitter); a retry the server pushed back waits exactly the pushback, and the retries after
 * it start again from {@code initialBackoff}.
 */
final class GrpcBackoff implements IntervalBiFunction<Object> {
  private final RetryPolicy policy;

  GrpcBackoff(RetryPolicy policy) {
    this.policy = policy;
  }

  /** The largest wait, in nanoseconds, of the retry after {@code step} retries since the last pushback. */
  long boundNanos(int step) {
    double bound = policy.initialBackoffNanos() * Math.pow(policy.backoffMultiplier(), step);
    return (long) Math.min(bound, (double) policy.maxBackoffNanos());
  }

  @Override
  public Long apply(Integer attempt, Either<Throwable, Object> outcome) {
    if (outcome.isLeft() && outcome.getLeft() instanceof AttemptFailure) {
      AttemptFailure f = (AttemptFailure) outcome.getLeft();
      if (f.pushbackMillis != null) {
        return f.pushbackMillis;
      }
      return TimeUnit.NANOSECONDS.toMillis((long) (ThreadLocalRandom.current().nextDouble() * boundNanos(f.backoffStep)));
    }
    // Not an attempt of ours (never happens: the retry predicate accepts only AttemptFailure).
    return TimeUnit.NANOSECONDS.toMillis(policy.initialBackoffNanos());
  }
}
