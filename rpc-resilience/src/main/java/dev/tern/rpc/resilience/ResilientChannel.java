package dev.tern.rpc.resilience;

import dev.tern.rpc.HedgingPolicy;
import dev.tern.rpc.RetryPolicy;
import dev.tern.rpc.TernCallOptions;
import dev.tern.rpc.spi.CallPolicyProvider;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.event.RetryOnErrorEvent;
import io.github.resilience4j.retry.event.RetryOnIgnoredErrorEvent;
import io.github.resilience4j.retry.event.RetryOnRetryEvent;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One channel's resilience: the interceptor that carries out each call's retry or hedging policy
 * ({@link RetryingCall}) and records every attempt on its transport's circuit breaker ({@link
 * TransportBreakers}), which in turn says which transports may race.
 */
final class ResilientChannel implements CallPolicyProvider.ChannelPolicies, ClientInterceptor {
  private final CallPolicyProvider.ChannelControl channel;
  private final ResilienceListener listener;
  private final TransportBreakers breakers;
  /** Each method's {@code Retry}, made again when the method's policy changes. */
  private final Map<String, MethodRetry> retries = new ConcurrentHashMap<>();
  private final AtomicReference<RetryThrottle> throttle = new AtomicReference<>();
  private final AtomicLong buffered = new AtomicLong();

  private record MethodRetry(RetryPolicy policy, Retry retry) { }

  ResilientChannel(CallPolicyProvider.ChannelControl channel, CircuitBreakerConfig breakerConfig,
      ResilienceListener listener) {
    this.channel = channel;
    CountingListener counting = new CountingListener(channel.metrics(), listener);
    this.listener = counting;
    this.breakers = new TransportBreakers(channel, breakerConfig, counting);
  }

  @Override
  public ClientInterceptor interceptor() {
    return this;
  }

  @Override
  public boolean transportAllowed(String transport) {
    return breakers.allows(transport);
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
      CallOptions options, Channel next) {
    RetryPolicy retry = options.getOption(TernCallOptions.RETRY_POLICY);
    HedgingPolicy hedging = options.getOption(TernCallOptions.HEDGING_POLICY);
    if (retry != null) {
      return new RetryingCall<>(method, options, next, Context.current(), this, retry, null,
          retryFor(method.getFullMethodName(), retry));
    }
    if (hedging != null) {
      return new RetryingCall<>(method, options, next, Context.current(), this, null, hedging, null);
    }
    return new Recorded<>(next.newCall(method, options), breakers);
  }

  /** The method's {@code Retry} for {@code policy}: its backoff, its attempts, its events. */
  private Retry retryFor(String method, RetryPolicy policy) {
    MethodRetry mr = retries.compute(method, (m, old) ->
        old != null && old.policy.equals(policy) ? old : new MethodRetry(policy, newRetry(m, policy)));
    return mr.retry;
  }

  private Retry newRetry(String method, RetryPolicy policy) {
    RetryConfig config = RetryConfig.custom()
        .maxAttempts(policy.maxAttempts())
        .intervalBiFunction(new GrpcBackoff(policy))
        // gRFC A6: a retryable code (by the policy, the server did not process the call) or a
        // per-attempt timeout, and nothing that forbids it (pushback, throttle, commit, cancel).
        .retryOnException(t -> t instanceof AttemptFailure && ((AttemptFailure) t).vetoed == null
            && (((AttemptFailure) t).timedOut
                || policy.retryableStatusCodes().contains(((AttemptFailure) t).status.getCode())))
        .failAfterMaxAttempts(false)
        .build();
    Retry retry = Retry.of(channel.authority() + " " + method, config);
    retry.getEventPublisher()
        .onRetry((RetryOnRetryEvent e) -> listener.retryScheduled(method, e.getNumberOfRetryAttempts(),
            e.getWaitInterval(), statusOf(e.getLastThrowable())))
        .onSuccess(e -> listener.succeededAfterRetries(method, e.getNumberOfRetryAttempts()))
        .onError((RetryOnErrorEvent e) -> listener.retriesExhausted(method, e.getNumberOfRetryAttempts(),
            statusOf(e.getLastThrowable())))
        .onIgnoredError((RetryOnIgnoredErrorEvent e) -> listener.notRetried(method, statusOf(e.getLastThrowable()),
            whyNot(e.getLastThrowable())));
    return retry;
  }

  private static Status statusOf(Throwable t) {
    return t instanceof AttemptFailure ? ((AttemptFailure) t).status : Status.fromThrowable(t);
  }

  private static String whyNot(Throwable t) {
    if (t instanceof AttemptFailure && ((AttemptFailure) t).vetoed != null) {
      return ((AttemptFailure) t).vetoed;
    }
    return "the code is not one of the retry policy's retryableStatusCodes";
  }

  // ---- What the calls use ----

  /** The channel's throttle for its current {@code retryThrottling}; null if it has none. */
  RetryThrottle throttle() {
    CallPolicyProvider.RetryThrottling config = channel.retryThrottling();
    if (config == null) {
      return null;
    }
    RetryThrottle t = throttle.get();
    if (t == null || !t.config.equals(config)) {
      // A new config gets a new, full bucket (as grpc-java's channel does).
      RetryThrottle fresh = new RetryThrottle(config);
      t = throttle.compareAndSet(t, fresh) ? fresh : throttle.get();
    }
    return t;
  }

  long perRpcBufferLimit() {
    return channel.perRpcBufferLimit();
  }

  /** Takes {@code bytes} of the channel's retry buffer; false if it has not that much left. */
  boolean reserveBuffer(long bytes) {
    long limit = channel.retryBufferSize();
    while (true) {
      long now = buffered.get();
      if (now + bytes > limit) {
        return false;
      }
      if (buffered.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  void releaseBuffer(long bytes) {
    if (bytes > 0) {
      buffered.addAndGet(-bytes);
    }
  }

  ScheduledExecutorService scheduler() {
    return channel.scheduler();
  }

  ResilienceListener listener() {
    return listener;
  }

  TransportBreakers breakers() {
    return breakers;
  }

  /** A call without a policy: made once, its outcome recorded on its transport's breaker. */
  private static final class Recorded<ReqT, RespT> extends ForwardingClientCall.SimpleForwardingClientCall<ReqT, RespT> {
    private final TransportBreakers breakers;

    Recorded(ClientCall<ReqT, RespT> delegate, TransportBreakers breakers) {
      super(delegate);
      this.breakers = Objects.requireNonNull(breakers);
    }

    @Override
    public void start(Listener<RespT> listener, Metadata headers) {
      long startNanos = System.nanoTime();
      ClientCall<ReqT, RespT> call = delegate();
      super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<RespT>(listener) {
        private volatile boolean headersReceived;

        @Override
        public void onHeaders(Metadata h) {
          headersReceived = true;
          super.onHeaders(h);
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
          breakers.record(call.getAttributes(), TransportBreakers.countsAgainst(status, headersReceived, false),
              status, startNanos);
          super.onClose(status, trailers);
        }
      }, headers);
    }
  }
}
