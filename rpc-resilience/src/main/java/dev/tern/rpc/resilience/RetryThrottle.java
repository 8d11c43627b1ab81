package dev.tern.rpc.resilience;

import dev.tern.rpc.spi.CallPolicyProvider;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * grpc's retry throttling (gRFC A6, "Throttling Retry Attempts and Hedged RPCs"): a channel's token
 * bucket of {@code maxTokens} that starts full; each attempt that fails with a retryable (or, when
 * hedging, a non-fatal) code takes one token, each success gives back {@code tokenRatio}, and
 * retries and hedges go out only while more than half the tokens are left. Counted in thousandths
 * of a token, as the gRFC allows three decimals in {@code tokenRatio}. Thread-safe.
 */
final class RetryThrottle {
  private static final int SCALE = 1000;

  final CallPolicyProvider.RetryThrottling config;
  private final int maxTokens;
  private final int threshold;
  private final int tokenRatio;
  private final AtomicInteger tokens;

  RetryThrottle(CallPolicyProvider.RetryThrottling config) {
    this.config = config;
    this.maxTokens = (int) Math.min(Integer.MAX_VALUE / 2, Math.round(config.maxTokens() * SCALE));
    this.threshold = maxTokens / 2;
    this.tokenRatio = (int) Math.max(1, Math.min(maxTokens, Math.round(config.tokenRatio() * SCALE)));
    this.tokens = new AtomicInteger(maxTokens);
  }

  /** A failure that counts (a retryable or non-fatal code): one token less, never below 0. */
  void onQualifiedFailure() {
    tokens.updateAndGet(t -> Math.max(0, t - SCALE));
  }

  /** A success: {@code tokenRatio} back, never above {@code maxTokens}. */
  void onSuccess() {
    tokens.updateAndGet(t -> Math.min(maxTokens, t + tokenRatio));
  }

  /** Whether a retry or a hedge may go out now: more than half the tokens are left. */
  boolean permitsRetry() {
    return tokens.get() > threshold;
  }

  /** The tokens left, for tests and logs. */
  double tokens() {
    return tokens.get() / (double) SCALE;
  }
}
