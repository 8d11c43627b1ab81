package dev.tern.rpc.resilience;

import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps every event the module reports, in order. */
final class RecordingListener implements ResilienceListener {
  final List<Duration> waits = new CopyOnWriteArrayList<>();
  final List<String> events = new CopyOnWriteArrayList<>();
  final List<String> transitions = new CopyOnWriteArrayList<>();
  /** When each hedged copy was sent ({@link System#nanoTime()}). */
  final List<Long> hedgeNanos = new CopyOnWriteArrayList<>();

  @Override
  public void retryScheduled(String method, int retry, Duration wait, Status status) {
    waits.add(wait);
    events.add("retry " + retry + " " + status.getCode());
  }

  @Override
  public void succeededAfterRetries(String method, int retries) {
    events.add("succeeded after " + retries);
  }

  @Override
  public void retriesExhausted(String method, int attempts, Status status) {
    events.add("exhausted " + status.getCode());
  }

  @Override
  public void notRetried(String method, Status status, String why) {
    events.add("not retried " + status.getCode() + ": " + why);
  }

  @Override
  public void hedgeSent(String method, int attempt) {
    hedgeNanos.add(System.nanoTime());
    events.add("hedge " + attempt);
  }

  @Override
  public void breakerStateChanged(String authority, String transport, String from, String to) {
    transitions.add(transport + " " + to);
  }
}
