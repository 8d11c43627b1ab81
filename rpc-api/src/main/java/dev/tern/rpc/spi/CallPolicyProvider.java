package dev.tern.rpc.spi;

import io.grpc.ClientInterceptor;

/**
 * Carries out a channel's call policies (retries, hedging, circuit breakers): the resilience
 * module ({@code rpc-resilience}) is one. A channel builder finds the first provider with {@link
 * java.util.ServiceLoader} (or is given one by {@code TernChannelBuilder.callPolicyProvider}) and,
 * at {@code build()}, asks it for the channel's {@link ChannelPolicies}: their interceptor runs
 * under the service config (so it sees each call's {@code TernCallOptions.RETRY_POLICY} and {@code
 * HEDGING_POLICY} and its deadline) and makes each attempt as a call of its own on the channel;
 * their transport gate takes part in every transport race of the channel.
 *
 * <p>Kept small and free of any library's types, so that {@code rpc-api} stays lean.
 */
public interface CallPolicyProvider {
  /**
   * The policies of one channel, made when the channel is built.
   *
   * @param channel what the channel offers its policies; valid for the channel's life
   * @return the channel's policies; not null
   */
  ChannelPolicies forChannel(ChannelControl channel);

  /** One channel's policies: an interceptor for its calls and a say in its transport races. */
  interface ChannelPolicies {
    /**
     * The interceptor every call of the channel goes through, innermost but for the service
     * config's: each {@code newCall} it makes on the next channel is one attempt.
     *
     * @return the interceptor; not null
     */
    ClientInterceptor interceptor();

    /**
     * Whether the channel may race {@code transport} now. A transport refused here is left out of
     * the channel's next races as a transport marked broken is; if every usable transport is
     * refused or marked, the refusals are not heeded (the transports marked broken still are).
     *
     * @param transport the transport's name, as its provider gives it
     * @return true to let the transport race (the default)
     */
    default boolean transportAllowed(String transport) {
      return true;
    }
  }

  /** What a channel offers its policies. Thread-safe. */
  interface ChannelControl {
    /**
     * The channel's authority, the key of its {@code TransportMemory}.
     *
     * @return {@code host[:port]}
     */
    String authority();

    /**
     * Whether {@code transport} is marked broken for this channel's authority in the channel's
     * {@code TransportMemory} (the race found it failing where another transport worked).
     *
     * @param transport the transport's name
     * @return true while the mark lasts
     */
    boolean markedBroken(String transport);

    /**
     * The channel's transports that may race, in its preference order (whatever the memory or
     * the gate says now).
     *
     * @return the names, most preferred first
     */
    java.util.List<String> transportPreference();

    /**
     * Leaves every ready connection of the channel carried by a transport {@code which} accepts, as
     * a connection whose address the resolver dropped is left: its calls finish, and the next call
     * connects anew (a race that asks the gate again).
     *
     * @param which accepts the names of the transports to leave
     */
    void leaveConnections(java.util.function.Predicate<String> which);

    /**
     * The channel's timer, for backoffs and per-attempt timeouts; it stops when the channel has
     * terminated, so a task scheduled then is rejected.
     *
     * @return the scheduler
     */
    java.util.concurrent.ScheduledExecutorService scheduler();

    /**
     * The {@code retryThrottling} of the channel's service config now; it can change when name
     * resolution brings a new config.
     *
     * @return the throttling, or null if the config has none (or retries are disabled)
     */
    RetryThrottling retryThrottling();

    /**
     * Most request bytes one call may keep for replaying it on a new attempt (the builder's
     * {@code perRpcBufferLimit}).
     *
     * @return bytes
     */
    long perRpcBufferLimit();

    /**
     * Most request bytes all of the channel's calls together may keep for replay (the builder's
     * {@code retryBufferSize}).
     *
     * @return bytes
     */
    long retryBufferSize();

    /**
     * Where the policies count their retries, hedges and breaker states: the channel's own
     * counters in the registry it was given ({@code TernChannelBuilder.metrics}), under its scope.
     *
     * @return the channel's call-policy counters
     */
    default dev.tern.rpc.metrics.CallPolicyMetrics metrics() {
      return dev.tern.rpc.metrics.TernMetrics.create().callPolicies("channel");
    }
  }

  /**
   * grpc's {@code retryThrottling} (gRFC A6): a token bucket per channel of {@code maxTokens}
   * tokens, each failed attempt taking one and each success giving back {@code tokenRatio}; retries
   * and hedges are sent only while more than half the tokens are left.
   *
   * @param maxTokens the bucket's size, more than 0
   * @param tokenRatio what a success gives back, more than 0
   */
  record RetryThrottling(double maxTokens, double tokenRatio) { }
}
