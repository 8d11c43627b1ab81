package dev.tern.rpc.resilience;

import dev.tern.rpc.spi.CallPolicyProvider;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * The resilience module's entry point: carries out the retry and hedging policies of a Tern
 * channel's service config with grpc's semantics (gRFC A6), with resilience4j's {@code Retry}, and
 * keeps a resilience4j {@code CircuitBreaker} per transport of each channel that keeps the
 * channel's calls off a failing transport and lets it back when it recovers.
 *
 * <p>On the class path it is found by every {@code TernChannelBuilder} (a {@link
 * CallPolicyProvider} registered for {@link java.util.ServiceLoader}) with the {@linkplain
 * #TernResilience() defaults}; to set the breakers or a listener, give a configured one to the
 * builder:
 *
 * <pre>{@code
 * TernResilience resilience = TernResilience.newBuilder()
 *     .circuitBreaker(CircuitBreakerConfig.custom().failureRateThreshold(50).build())
 *     .listener(myMetrics)
 *     .build();
 * ManagedChannel channel = TernChannelBuilder.forAddress(host, port)
 *     .callPolicyProvider(resilience)
 *     .build();
 * }</pre>
 */
public final class TernResilience implements CallPolicyProvider {
  /**
   * The breakers' defaults: a failure rate of 50% or more over the last 20 attempts (at least 5)
   * on a transport opens its breaker; it stays open 30 s, then lets the transport race again and
   * judges it by its next 5 attempts.
   */
  public static final CircuitBreakerConfig DEFAULT_BREAKER = CircuitBreakerConfig.custom()
      .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
      .slidingWindowSize(20)
      .minimumNumberOfCalls(5)
      .failureRateThreshold(50)
      .waitDurationInOpenState(Duration.ofSeconds(30))
      .permittedNumberOfCallsInHalfOpenState(5)
      .build();

  private final CircuitBreakerConfig breaker;
  private final ResilienceListener listener;

  /** With the defaults: {@link #DEFAULT_BREAKER} and no listener. The service loader uses this. */
  public TernResilience() {
    this(DEFAULT_BREAKER, ResilienceListener.NONE);
  }

  private TernResilience(CircuitBreakerConfig breaker, ResilienceListener listener) {
    this.breaker = breaker;
    this.listener = listener;
  }

  /**
   * A builder starting from the defaults.
   *
   * @return a new builder
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * The policies of one channel (called by the channel's builder at {@code build()}).
   *
   * @param channel what the channel offers
   * @return the channel's interceptor and transport gate
   */
  @Override
  public CallPolicyProvider.ChannelPolicies forChannel(ChannelControl channel) {
    return new ResilientChannel(Objects.requireNonNull(channel, "channel"), breaker, listener);
  }

  /** Builds a {@link TernResilience}. */
  public static final class Builder {
    private CircuitBreakerConfig breaker = DEFAULT_BREAKER;
    private ResilienceListener listener = ResilienceListener.NONE;

    private Builder() {}

    /**
     * The configuration of every transport's circuit breaker. Its exception predicates are not
     * used: an attempt counts as failed when it ended UNAVAILABLE or without response headers
     * before its deadline or per-attempt timeout. The automatic move from open to half-open is
     * done by the channel's timer whatever the config says.
     *
     * @param config resilience4j's breaker config
     * @return this builder
     * @throws NullPointerException if {@code config} is null
     */
    public Builder circuitBreaker(CircuitBreakerConfig config) {
      breaker = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * Who hears the retries, hedges and breakers' events (metrics, logs).
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder listener(ResilienceListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * The provider, to give to {@code TernChannelBuilder.callPolicyProvider}.
     *
     * @return a new provider with this builder's settings
     */
    public TernResilience build() {
      return new TernResilience(breaker, listener);
    }
  }
}
