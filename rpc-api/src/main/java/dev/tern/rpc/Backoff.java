package dev.tern.rpc;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Reconnect delays: exponential with jitter, as gRPC's connection-backoff rules (initial delay,
 * multiplier 1.6, jitter 0.2, a cap), reset after a connection succeeds.
 */
final class Backoff {
  private static final double MULTIPLIER = 1.6;
  private static final double JITTER = 0.2;

  private final long initialNanos;
  private final long maxNanos;
  private long nextNanos;

  Backoff(long initialNanos, long maxNanos) {
    this.initialNanos = initialNanos;
    this.maxNanos = maxNanos;
    this.nextNanos = initialNanos;
  }

  /** The delay before the next attempt; grows the one after. */
  long nextDelayNanos() {
    long current = nextNanos;
    nextNanos = (long) Math.min(maxNanos, current * MULTIPLIER);
    double jitter = 1 + JITTER * (ThreadLocalRandom.current().nextDouble() * 2 - 1);
    return (long) (current * jitter);
  }

  void reset() {
    nextNanos = initialNanos;
  }
}
