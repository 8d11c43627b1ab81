package dev.tern.rpc;

import dev.tern.rpc.spi.CallPolicyProvider;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The {@link ManagedChannel} that {@link TernChannelBuilder#build()} returns. */
final class TernManagedChannel extends ManagedChannel {
  private final ChannelConfig cfg;
  private final ScheduledThreadPoolExecutor scheduler;
  private final ExecutorService ownedExecutor;
  private final Executor executor;
  private final ChannelBalancer connections;
  private final Channel intercepted;
  private final CountDownLatch terminatedLatch = new CountDownLatch(1);
  private volatile boolean shutdown;

  TernManagedChannel(ChannelConfig cfg, ResolverAddresses resolver, String loadBalancingPolicy) {
    this(cfg, resolver, loadBalancingPolicy, null);
  }

  /** @param policies carries out retry and hedging policies and breakers; null for none */
  TernManagedChannel(ChannelConfig cfg, ResolverAddresses resolver, String loadBalancingPolicy,
      CallPolicyProvider policies) {
    this.cfg = cfg;
    this.scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.factory("tern-channel-timer"));
    this.scheduler.setRemoveOnCancelPolicy(true);
    if (cfg.executor == null) {
      this.ownedExecutor = DaemonThreads.cachedPool("tern-channel-executor");
      this.executor = ownedExecutor;
    } else {
      this.ownedExecutor = null;
      this.executor = cfg.executor;
    }
    this.connections = new ChannelBalancer(cfg, resolver, loadBalancingPolicy, scheduler, executor, this::terminated);
    Channel calls = new CallFactory();
    if (policies != null) {
      CallPolicyProvider.ChannelPolicies p = policies.forChannel(new Control());
      cfg.policies = p;
      // Under the service config's interceptor: it sees each call's policy and deadline, and each
      // newCall it makes below is one attempt.
      calls = ClientInterceptors.intercept(calls, p.interceptor());
    }
    // Without a provider the policies are ignored, and the first call that has one says so.
    this.intercepted = ClientInterceptors.intercept(ClientInterceptors.intercept(calls,
        new ServiceConfigInterceptor(cfg.serviceConfig, cfg.authority, policies != null)), cfg.interceptors);
  }

  private void terminated() {
    scheduler.shutdown();
    if (ownedExecutor != null) {
      ownedExecutor.shutdown();
    }
    terminatedLatch.countDown();
  }

  ChannelBalancer connections() {
    return connections;
  }

  TransportMemory memory() {
    return cfg.memory;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions) {
    return intercepted.newCall(method, callOptions);
  }

  @Override
  public String authority() {
    return cfg.authority;
  }

  @Override
  public ManagedChannel shutdown() {
    shutdown = true;
    connections.shutdown();
    return this;
  }

  @Override
  public ManagedChannel shutdownNow() {
    shutdown = true;
    connections.shutdownNow();
    return this;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return terminatedLatch.getCount() == 0;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return terminatedLatch.await(timeout, unit);
  }

  @Override
  public ConnectivityState getState(boolean requestConnection) {
    return connections.state(requestConnection);
  }

  @Override
  public void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
    connections.notifyWhenStateChanged(source, callback);
  }

  @Override
  public void resetConnectBackoff() {
    connections.resetBackoff();
  }

  @Override
  public String toString() {
    return "TernManagedChannel{" + cfg.authority + ", transports=" + cfg.selector.preference() + '}';
  }

  /** What the channel offers its call policies. */
  private final class Control implements CallPolicyProvider.ChannelControl {
    @Override
    public String authority() {
      return cfg.authority;
    }

    @Override
    public boolean markedBroken(String transport) {
      return cfg.memory.isBroken(cfg.authority, transport);
    }

    @Override
    public java.util.List<String> transportPreference() {
      return cfg.selector.preference();
    }

    @Override
    public void leaveConnections(java.util.function.Predicate<String> which) {
      connections.leaveConnections(which);
    }

    @Override
    public java.util.concurrent.ScheduledExecutorService scheduler() {
      return scheduler;
    }

    @Override
    public CallPolicyProvider.RetryThrottling retryThrottling() {
      ServiceConfigs.RetryThrottling t = cfg.serviceConfig.get().retryThrottling();
      return t == null ? null : new CallPolicyProvider.RetryThrottling(t.maxTokens(), t.tokenRatio());
    }

    @Override
    public long perRpcBufferLimit() {
      return cfg.options.get(TransportOptions.PER_RPC_BUFFER_LIMIT);
    }

    @Override
    public long retryBufferSize() {
      return cfg.options.get(TransportOptions.RETRY_BUFFER_SIZE);
    }

    @Override
    public dev.tern.rpc.metrics.CallPolicyMetrics metrics() {
      return cfg.metrics.callPolicies(cfg.metricsScope);
    }
  }

  /** Makes the calls under the interceptors. */
  private final class CallFactory extends Channel {
    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(MethodDescriptor<ReqT, RespT> method,
        CallOptions callOptions) {
      if (shutdown) {
        return new FailingClientCall<>(Status.UNAVAILABLE.withDescription("channel shutdown invoked"),
            callOptions.getExecutor() != null ? callOptions.getExecutor() : executor);
      }
      return new TernClientCall<>(method, callOptions, cfg, connections, scheduler, executor);
    }

    @Override
    public String authority() {
      return cfg.authority;
    }
  }

  /** A call on a shut-down channel: closes with the given status as soon as it starts. */
  private static final class FailingClientCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final Status status;
    private final Executor executor;

    FailingClientCall(Status status, Executor executor) {
      this.status = status;
      this.executor = executor;
    }

    @Override
    public void start(Listener<RespT> listener, Metadata headers) {
      executor.execute(() -> listener.onClose(status, new Metadata()));
    }

    @Override public void request(int numMessages) {}

    @Override public void cancel(String message, Throwable cause) {}

    @Override public void halfClose() {}

    @Override public void sendMessage(ReqT message) {}
  }
}
