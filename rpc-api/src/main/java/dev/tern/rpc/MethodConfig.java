package dev.tern.rpc;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One {@code methodConfig} entry of a service config, parsed and checked as grpc-java's {@code
 * ManagedChannelServiceConfig.MethodInfo}: each value null when the entry leaves it unset.
 */
final class MethodConfig {
  /** The call's timeout from its start; null if unset. */
  final Long timeoutNanos;
  /** Overrides the call's own waitForReady when set. */
  final Boolean waitForReady;
  /** Largest request message; the call's own limit, if smaller, wins. */
  final Integer maxRequestMessageBytes;
  /** Largest response message; the call's own limit, if smaller, wins. */
  final Integer maxResponseMessageBytes;
  /** Null if unset, if the channel has retries disabled, or if its cap allows only one attempt. */
  final RetryPolicy retryPolicy;
  /** Null if unset, if the channel has retries disabled, or if its cap allows only one attempt. */
  final HedgingPolicy hedgingPolicy;

  private MethodConfig(Long timeoutNanos, Boolean waitForReady, Integer maxRequestMessageBytes,
      Integer maxResponseMessageBytes, RetryPolicy retryPolicy, HedgingPolicy hedgingPolicy) {
    this.timeoutNanos = timeoutNanos;
    this.waitForReady = waitForReady;
    this.maxRequestMessageBytes = maxRequestMessageBytes;
    this.maxResponseMessageBytes = maxResponseMessageBytes;
    this.retryPolicy = retryPolicy;
    this.hedgingPolicy = hedgingPolicy;
  }

  /** Parses {@code entry} (at {@code path}, such as {@code methodConfig[1]}) within {@code limits}. */
  static MethodConfig parse(Map<String, ?> entry, String path, ServiceConfigs.Limits limits) {
    Long timeout = ServiceConfigJson.duration(entry, "timeout", path + ".timeout");
    if (timeout != null && timeout < 0) {
      throw new IllegalArgumentException(path + ".timeout: " + ServiceConfigJson.describe(entry.get("timeout"))
          + " is negative");
    }
    Boolean waitForReady = ServiceConfigJson.bool(entry, "waitForReady", path + ".waitForReady");
    Integer maxRequest = size(entry, "maxRequestMessageBytes", path);
    Integer maxResponse = size(entry, "maxResponseMessageBytes", path);
    RetryPolicy retry = null;
    HedgingPolicy hedging = null;
    if (limits.retryEnabled()) {
      // As grpc-java: with retries disabled the policies are not read at all.
      Map<String, ?> r = ServiceConfigJson.object(entry, "retryPolicy", path + ".retryPolicy");
      Map<String, ?> h = ServiceConfigJson.object(entry, "hedgingPolicy", path + ".hedgingPolicy");
      if (r != null && h != null) {
        throw new IllegalArgumentException(path + ": has both a retryPolicy and a hedgingPolicy; a method may have"
            + " only one");
      }
      retry = r == null ? null : retryPolicy(r, path + ".retryPolicy", limits.maxRetryAttempts());
      hedging = h == null ? null : hedgingPolicy(h, path + ".hedgingPolicy", limits.maxHedgedAttempts());
    }
    return new MethodConfig(timeout, waitForReady, maxRequest, maxResponse, retry, hedging);
  }

  private static Integer size(Map<String, ?> entry, String key, String path) {
    Integer v = ServiceConfigJson.integer(entry, key, path + "." + key);
    if (v != null && v < 0) {
      throw new IllegalArgumentException(path + "." + key + ": '" + v + "' is negative");
    }
    return v;
  }

  private static RetryPolicy retryPolicy(Map<String, ?> p, String path, int cap) {
    int maxAttempts = maxAttempts(p, path);
    long initial = positive(required(ServiceConfigJson.duration(p, "initialBackoff", path + ".initialBackoff"),
        path + ".initialBackoff"), p.get("initialBackoff"), path + ".initialBackoff");
    long max = positive(required(ServiceConfigJson.duration(p, "maxBackoff", path + ".maxBackoff"),
        path + ".maxBackoff"), p.get("maxBackoff"), path + ".maxBackoff");
    double multiplier = required(ServiceConfigJson.number(p, "backoffMultiplier", path + ".backoffMultiplier"),
        path + ".backoffMultiplier");
    if (!(multiplier > 0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException(path + ".backoffMultiplier: "
          + ServiceConfigJson.describe(p.get("backoffMultiplier")) + " must be more than 0");
    }
    Long perAttempt = ServiceConfigJson.duration(p, "perAttemptRecvTimeout", path + ".perAttemptRecvTimeout");
    if (perAttempt != null && perAttempt < 0) {
      throw new IllegalArgumentException(path + ".perAttemptRecvTimeout: "
          + ServiceConfigJson.describe(p.get("perAttemptRecvTimeout")) + " is negative");
    }
    Set<io.grpc.Status.Code> codes = required(ServiceConfigJson.statusCodes(p, "retryableStatusCodes",
        path + ".retryableStatusCodes"), path + ".retryableStatusCodes");
    if (codes.isEmpty() && perAttempt == null) {
      throw new IllegalArgumentException(path + ".retryableStatusCodes: is empty, which a retry policy without"
          + " perAttemptRecvTimeout may not be");
    }
    int capped = Math.min(maxAttempts, cap);
    // A channel that allows one attempt (maxRetryAttempts(1)) retries nothing: no policy to hand on.
    return capped < 2 ? null : RetryPolicy.of(capped, initial, max, multiplier, perAttempt, codes);
  }

  private static HedgingPolicy hedgingPolicy(Map<String, ?> p, String path, int cap) {
    int maxAttempts = maxAttempts(p, path);
    long delay = required(ServiceConfigJson.duration(p, "hedgingDelay", path + ".hedgingDelay"),
        path + ".hedgingDelay");
    if (delay < 0) {
      throw new IllegalArgumentException(path + ".hedgingDelay: " + ServiceConfigJson.describe(p.get("hedgingDelay"))
          + " is negative");
    }
    Set<io.grpc.Status.Code> codes = ServiceConfigJson.statusCodes(p, "nonFatalStatusCodes",
        path + ".nonFatalStatusCodes");
    int capped = Math.min(maxAttempts, cap);
    return capped < 2 ? null : HedgingPolicy.of(capped, delay, codes == null ? Collections.emptySet() : codes);
  }

  private static int maxAttempts(Map<String, ?> p, String path) {
    int n = required(ServiceConfigJson.integer(p, "maxAttempts", path + ".maxAttempts"), path + ".maxAttempts");
    if (n < 2) {
      throw new IllegalArgumentException(path + ".maxAttempts: '" + n + "' must be 2 or more");
    }
    return n;
  }

  private static <T> T required(T value, String path) {
    if (value == null) {
      throw new IllegalArgumentException(path + ": is required");
    }
    return value;
  }

  private static long positive(long nanos, Object raw, String path) {
    if (nanos <= 0) {
      throw new IllegalArgumentException(path + ": " + ServiceConfigJson.describe(raw) + " must be more than 0");
    }
    return nanos;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof MethodConfig)) {
      return false;
    }
    MethodConfig that = (MethodConfig) o;
    return Objects.equals(timeoutNanos, that.timeoutNanos) && Objects.equals(waitForReady, that.waitForReady)
        && Objects.equals(maxRequestMessageBytes, that.maxRequestMessageBytes)
        && Objects.equals(maxResponseMessageBytes, that.maxResponseMessageBytes)
        && Objects.equals(retryPolicy, that.retryPolicy) && Objects.equals(hedgingPolicy, that.hedgingPolicy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(timeoutNanos, waitForReady, maxRequestMessageBytes, maxResponseMessageBytes, retryPolicy,
        hedgingPolicy);
  }

  @Override
  public String toString() {
    return "MethodConfig{timeout=" + (timeoutNanos == null ? null : RetryPolicy.StatusCodes.seconds(timeoutNanos))
        + ", waitForReady=" + waitForReady + ", maxRequestMessageBytes=" + maxRequestMessageBytes
        + ", maxResponseMessageBytes=" + maxResponseMessageBytes + ", retryPolicy=" + retryPolicy
        + ", hedgingPolicy=" + hedgingPolicy + '}';
  }
}
