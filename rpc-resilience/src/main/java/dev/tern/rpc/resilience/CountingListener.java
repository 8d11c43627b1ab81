package dev.tern.rpc.resilience;

import dev.tern.rpc.metrics.CallPolicyMetrics;
import io.grpc.Status;
import java.time.Duration;

/**
 * Counts what resilience4j's event publishers report (through the module's listener events) into
 * the channel's {@link CallPolicyMetrics}, then hands each event to the application's listener.
 */
final class CountingListener implements ResilienceListener {
  private final CallPolicyMetrics metrics;
  private final ResilienceListener next;

  CountingListener(CallPolicyMetrics metrics, ResilienceListener next) {
    this.metrics = metrics;
    this.next = next;
  }

  /** A breaker exists, in its first state (CLOSED), before any transition is reported. */
  void breakerCreated(String transport) {
    metrics.breakerState(transport, CallPolicyMetrics.BreakerState.CLOSED);
  }

  @Override
  public void retryScheduled(String method, int retry, Duration wait, Status status) {
    metrics.retryScheduled();
    next.retryScheduled(method, retry, wait, status);
  }

  @Override
  public void succeededAfterRetries(String method, int retries) {
    metrics.succeededAfterRetries();
    next.succeededAfterRetries(method, retries);
  }

  @Override
  public void retriesExhausted(String method, int attempts, Status status) {
    metrics.retriesExhausted();
    next.retriesExhausted(method, attempts, status);
  }

  @Override
  public void notRetried(String method, Status status, String why) {
    metrics.notRetried();
    next.notRetried(method, status, why);
  }

  @Override
  public void hedgeSent(String method, int attempt) {
    metrics.hedgeSent();
    next.hedgeSent(method, attempt);
  }

  @Override
  public void breakerStateChanged(String authority, String transport, String from, String to) {
    CallPolicyMetrics.BreakerState state = CallPolicyMetrics.BreakerState.of(to);
    if (state != null) {
      metrics.breakerState(transport, state);
    }
    next.breakerStateChanged(authority, transport, from, to);
  }

  @Override
  public void breakerCallRecorded(String authority, String transport, boolean failed, Duration duration) {
    next.breakerCallRecorded(authority, transport, failed, duration);
  }
}
