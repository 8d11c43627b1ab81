package dev.tern.rpc;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelLogger;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.grpc.util.GracefulSwitchLoadBalancer;
import java.net.SocketAddress;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's load balancing, on grpc-java's public {@link LoadBalancer} API: the policy (from the
 * service config's {@code loadBalancingConfig}, else the builder's {@code
 * defaultLoadBalancingPolicy}, else {@code pick_first}, as grpc-java) is looked up in {@link
 * LoadBalancerRegistry}, so grpc-java's own {@code pick_first} and {@code round_robin} and any
 * custom policy plug in. Each subchannel the policy makes is one backend's {@link
 * ConnectionManager}, whose connect is a transport race over the backend's addresses
 * (docs/transport-choice.md), so the race runs per backend.
 *
 * <p>A call asks the policy's current picker for a backend: it gets that backend's ready transport,
 * waits for the next picker when the pick has no result (as grpc-java's delayed transport), fails
 * with the pick's error unless it waits for ready, and fails at once when the pick drops it. A call
 * allowed early data that finds no ready backend may go on the first candidate of a backend's race
 * (0-RTT), as it did on a channel with one connection.
 *
 * <p>Name resolution, the policy and the subchannels' state all run in one {@link
 * SynchronizationContext}. With no call for the idle timeout the channel goes idle as grpc-java's
 * does: the policy and the resolver are shut down (their connections close once their calls are
 * done) and the next call starts them again.
 */
final class ChannelBalancer implements CallRouter {
  private static final Logger log = Logger.getLogger(ChannelBalancer.class.getName());
  /** The policy grpc-java's channels use when nothing names one. */
  static final String DEFAULT_POLICY = "pick_first";

  /**
   * A target given as host and port (no name resolver): one backend whose addresses are resolved at
   * each connect, on the offload executor, as the channel did before load balancing.
   */
  static final class DeferredAddress extends SocketAddress {
    private static final long serialVersionUID = 1L;
    final transient Supplier<List<SocketAddress>> resolve;
    private final String name;

    DeferredAddress(Supplier<List<SocketAddress>> resolve, String name) {
      this.resolve = resolve;
      this.name = name;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** How a waiting call waits. */
  private static final class Mode {
    final LoadBalancer.PickSubchannelArgs args;
    final boolean waitForReady;
    final boolean earlyData;

    Mode(LoadBalancer.PickSubchannelArgs args, boolean waitForReady, boolean earlyData) {
      this.args = args;
      this.waitForReady = waitForReady;
      this.earlyData = earlyData;
    }
  }

  private final ChannelConfig cfg;
  private final ScheduledExecutorService scheduler;
  private final Executor callbackExecutor;
  private final Runnable onTerminated;
  private final SynchronizationContext sync;
  /** The name resolver; null for a host-and-port target. */
  private final ResolverAddresses resolver;
  private final ChannelLogger channelLogger = ResolverAddresses.ChannelLoggers.forClass(ChannelBalancer.class);
  private final Backoff resolutionBackoff;
  private final Object defaultPolicyConfig;

  // Guarded by this.
  private final Map<ConnectionManager.Waiter, Mode> pending = new LinkedHashMap<>();
  /** Calls that asked for a transport and have not ended: while there is one the channel is not idle. */
  private final Set<ConnectionManager.Waiter> inUse = new HashSet<>();
  /** Every backend not yet terminated, including those the policy shut down whose calls still run. */
  private final Set<ConnectionManager> backends = new java.util.LinkedHashSet<>();
  private final List<Runnable> stateWatchers = new ArrayList<>();
  private ConnectivityState state = ConnectivityState.IDLE;
  /** Whether the policy runs (the channel is not idle). */
  private boolean active;
  private boolean shutdown;
  private boolean policyShutDown;
  private boolean terminated;
  /**
   * The idle timer's wake-up, null when none is scheduled. It is not cancelled when a call starts
   * nor rescheduled when one ends (as grpc-java's {@code Rescheduler}): a call costs no timer
   * operation; a wake-up that comes early, or while calls run, schedules the rest or nothing.
   */
  private ScheduledFuture<?> idleTimer;
  private boolean idleArmed;
  private long idleDeadlineNanos;
  private volatile LoadBalancer.SubchannelPicker picker;

  // Confined to the synchronization context.
  private GracefulSwitchLoadBalancer policy;
  private BalancerHelper helper;
  private SynchronizationContext.ScheduledHandle resolutionRetry;
  private boolean loggedBadPolicy;
  /** Whether a resolver's own service config was applied (grpc-java keeps it over a later bad one). */
  private boolean hadResolvedConfig;

  /**
   * @param resolver the channel's name resolver, or null when {@code cfg.address} gives the addresses
   * @param defaultPolicy the load-balancing policy when the service config names none
   * @throws IllegalArgumentException if {@code defaultPolicy} is not in grpc-java's registry
   */
  ChannelBalancer(ChannelConfig cfg, ResolverAddresses resolver, String defaultPolicy,
      ScheduledExecutorService scheduler, Executor callbackExecutor, Runnable onTerminated) {
    this.cfg = cfg;
    this.resolver = resolver;
    this.scheduler = scheduler;
    this.callbackExecutor = callbackExecutor;
    this.onTerminated = onTerminated;
    this.sync = cfg.sync;
    this.resolutionBackoff = new Backoff(cfg.initialBackoffNanos, cfg.maxBackoffNanos);
    this.defaultPolicyConfig = policyConfig(defaultPolicy);
  }

  /** The load-balancing config of {@code policy} with no settings of its own. */
  static Object policyConfig(String policy) {
    NameResolver.ConfigOrError c = GracefulSwitchLoadBalancer.parseLoadBalancingPolicyConfig(
        Collections.singletonList(Collections.singletonMap(policy, Collections.emptyMap())));
    if (c.getError() != null) {
      throw new IllegalArgumentException("no load-balancing policy named '" + policy + "' is registered in"
          + " grpc-java's LoadBalancerRegistry (" + c.getError().getDescription() + "); "
          + DEFAULT_POLICY + " and round_robin come with Tern, others register a LoadBalancerProvider");
    }
    return c.getConfig();
  }

  // ---- Calls ----

  @Override
  public void obtain(ConnectionManager.Waiter waiter, LoadBalancer.PickSubchannelArgs args, boolean waitForReady,
      boolean earlyData) {
    boolean exitIdle = false;
    boolean closed;
    synchronized (this) {
      closed = policyShutDown;
      if (!closed) {
        inUse.add(waiter);
        idleArmed = false;
        if (!active && !shutdown) {
          active = true;
          exitIdle = true;
        }
      }
    }
    if (closed) {
      waiter.failed(Status.UNAVAILABLE.withDescription("channel is shut down"));
      return;
    }
    if (exitIdle) {
      sync.execute(this::exitIdle);
    }
    route(waiter, new Mode(args, waitForReady, earlyData));
  }

  @Override
  public void cancelWait(ConnectionManager.Waiter waiter) {
    boolean stopPolicy;
    synchronized (this) {
      pending.remove(waiter);
      if (inUse.remove(waiter) && inUse.isEmpty()) {
        armIdleTimer();
      }
      stopPolicy = shutdown && pending.isEmpty() && !policyShutDown;
    }
    if (stopPolicy) {
      sync.execute(this::shutDownPolicy);
    }
  }

  /**
   * Picks a backend for the call with the current picker; without a result the call waits for the
   * next picker. A picker that changed while this pick ran is asked again (grpc-java's delayed
   * transport does the same), so no call waits on a stale picker.
   */
  private void route(ConnectionManager.Waiter waiter, Mode m) {
    LoadBalancer.SubchannelPicker p = picker;
    while (true) {
      if (p != null) {
        LoadBalancer.PickResult r;
        try {
          r = p.pickSubchannel(m.args);
        } catch (RuntimeException e) {
          waiter.failed(Status.INTERNAL.withDescription("the load balancer's picker threw").withCause(e));
          return;
        }
        if (!r.getStatus().isOk()) {
          if (r.isDrop() || !m.waitForReady) {
            // The pick's status as it is: the policies here pass on the backends' own connect failures
            // (a version mismatch is FAILED_PRECONDITION), which grpc-java's control-plane rewrite
            // to INTERNAL would hide.
            waiter.failed(r.getStatus());
            return;
          }
        } else if (r.getSubchannel() != null) {
          ConnectionManager backend = backendOf(r.getSubchannel());
          if (backend != null && handTo(backend, waiter, m)) {
            return;
          }
        } else if (m.earlyData && !m.waitForReady) {
          ConnectionManager backend = earlyBackend();
          if (backend != null && handTo(backend, waiter, m)) {
            return;
          }
        }
      }
      synchronized (this) {
        if (picker != p) {
          p = picker;
          continue;
        }
        if (policyShutDown) {
          break;
        }
        pending.put(waiter, m);
        return;
      }
    }
    waiter.failed(Status.UNAVAILABLE.withDescription("channel is shut down"));
  }

  /**
   * Gives the call the backend's ready transport (or, for a call allowed early data, its race's
   * first candidate). A backend picked but no longer ready (its connection closed since the picker
   * was made) gets no call: the call waits for the picker that the backend's new state brings, so
   * no call is stranded on a backend the policy has left.
   */
  private static boolean handTo(ConnectionManager backend, ConnectionManager.Waiter waiter, Mode m) {
    Connection c = backend.current();
    if (c == null && m.earlyData && !m.waitForReady) {
      c = backend.earlyConnection();
    }
    if (c == null) {
      return false;
    }
    waiter.ready(c);
    return true;
  }

  private static ConnectionManager backendOf(LoadBalancer.Subchannel s) {
    Object internal;
    try {
      internal = s.getInternalSubchannel();
    } catch (UnsupportedOperationException e) {
      return null;
    }
    return internal instanceof Backend ? ((Backend) internal).connection : null;
  }

  /** A backend whose race lets early calls go on its first candidate now, or null. */
  private synchronized ConnectionManager earlyBackend() {
    for (ConnectionManager b : backends) {
      if (b.earlyConnection() != null) {
        return b;
      }
    }
    return null;
  }

  /** Sends the calls waiting for a pick through the new picker (in the synchronization context). */
  private void repick(boolean earlyOnly) {
    List<Map.Entry<ConnectionManager.Waiter, Mode>> again = new ArrayList<>();
    synchronized (this) {
      for (Map.Entry<ConnectionManager.Waiter, Mode> e : pending.entrySet()) {
        if (!earlyOnly || e.getValue().earlyData && !e.getValue().waitForReady) {
          again.add(new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue()));
        }
      }
      for (Map.Entry<ConnectionManager.Waiter, Mode> e : again) {
        pending.remove(e.getKey());
      }
    }
    for (Map.Entry<ConnectionManager.Waiter, Mode> e : again) {
      route(e.getKey(), e.getValue());
    }
    boolean stopPolicy;
    synchronized (this) {
      stopPolicy = shutdown && pending.isEmpty() && !policyShutDown;
    }
    if (stopPolicy) {
      shutDownPolicy();
    }
  }

  // ---- The policy and the resolver (synchronization context) ----

  private void exitIdle() {
    synchronized (this) {
      if (policyShutDown || !active || policy != null) {
        return;
      }
      if (inUse.isEmpty()) {
        armIdleTimer(); // left idle on request (getState(true)) with no call
      }
    }
    helper = new BalancerHelper();
    policy = new GracefulSwitchLoadBalancer(helper);
    if (resolver != null) {
      resolver.start(new Resolution(helper));
    } else {
      Status accepted = policy.acceptResolvedAddresses(LoadBalancer.ResolvedAddresses.newBuilder()
          .setAddresses(Collections.singletonList(
              new EquivalentAddressGroup(new DeferredAddress(cfg.address, cfg.authority))))
          .setLoadBalancingPolicyConfig(policyConfigFor(cfg.defaultServiceConfig))
          .build());
      if (!accepted.isOk()) {
        log.log(Level.WARNING, "channel to {0}: the load balancer refused its address: {1}",
            new Object[] {cfg.authority, accepted});
      }
    }
  }

  /** Stops the resolver and the policy (idle or shut down); the policy shuts its backends down. */
  private void stopPolicy() {
    if (resolutionRetry != null) {
      resolutionRetry.cancel();
      resolutionRetry = null;
    }
    if (resolver != null) {
      resolver.shutdown();
    }
    if (policy != null) {
      policy.shutdown();
      policy = null;
    }
    helper = null;
    picker = null;
  }

  private void shutDownPolicy() {
    synchronized (this) {
      if (policyShutDown) {
        return;
      }
      policyShutDown = true;
    }
    stopPolicy();
    List<ConnectionManager> left;
    synchronized (this) {
      left = new ArrayList<>(backends);
    }
    // Backends the policy made are shut down by it; this catches any it left behind.
    left.forEach(ConnectionManager::shutdown);
    maybeTerminated();
  }

  private void scheduleResolutionRetry() {
    if (resolver == null || resolutionRetry != null && resolutionRetry.isPending() || policy == null) {
      return;
    }
    resolutionRetry = sync.schedule(() -> {
      resolutionRetry = null;
      resolver.refresh();
    }, resolutionBackoff.nextDelayNanos(), TimeUnit.NANOSECONDS, scheduler);
  }

  /** The load-balancing config a service config names, or the default policy's. */
  private Object policyConfigFor(ServiceConfigs serviceConfig) {
    List<Map<String, ?>> configs =
        serviceConfig == null ? Collections.emptyList() : serviceConfig.loadBalancingConfigs();
    if (configs.isEmpty()) {
      return defaultPolicyConfig;
    }
    NameResolver.ConfigOrError c = GracefulSwitchLoadBalancer.parseLoadBalancingPolicyConfig(configs);
    if (c.getError() != null) {
      if (!loggedBadPolicy) {
        loggedBadPolicy = true;
        log.log(Level.WARNING, "channel to {0}: the service config''s load balancing cannot be used ({1});"
            + " using the default policy", new Object[] {cfg.authority, c.getError()});
      }
      return defaultPolicyConfig;
    }
    return c.getConfig();
  }

  /** Receives one resolver run's answers while its helper is the current one. */
  private final class Resolution implements ResolverAddresses.Listener {
    private final BalancerHelper owner;

    Resolution(BalancerHelper owner) {
      this.owner = owner;
    }

    @Override
    public Status addresses(List<EquivalentAddressGroup> groups, Attributes attributes,
        NameResolver.ConfigOrError serviceConfig) {
      if (owner != helper) {
        return Status.OK;
      }
      // grpc-java's choice between the resolver's config, the default and the last good one.
      NameResolver.ConfigOrError effective = ServiceConfigs.effective(serviceConfig, cfg.defaultServiceConfig,
          cfg.serviceConfigLookUp, cfg.serviceConfig.get(), hadResolvedConfig);
      if (effective.getError() != null) {
        error(effective.getError()); // a first config that is invalid, with no default to fall back on
        return effective.getError();
      }
      ServiceConfigs sc = (ServiceConfigs) effective.getConfig();
      if (serviceConfig != null && serviceConfig.getConfig() != null && cfg.serviceConfigLookUp) {
        hadResolvedConfig = true;
      }
      cfg.serviceConfig.set(sc);
      Attributes.Builder attrs = attributes.toBuilder();
      Object policyConfig = policyConfigFor(sc);
      Map<String, ?> health = sc.healthCheckConfig();
      if (health != null) {
        attrs.set(LoadBalancer.ATTR_HEALTH_CHECKING_CONFIG, health);
      }
      Status accepted = policy.acceptResolvedAddresses(LoadBalancer.ResolvedAddresses.newBuilder()
          .setAddresses(groups)
          .setAttributes(attrs.build())
          .setLoadBalancingPolicyConfig(policyConfig)
          .build());
      if (accepted.isOk()) {
        resolutionBackoff.reset();
      } else {
        scheduleResolutionRetry();
      }
      return accepted;
    }

    @Override
    public void error(Status status) {
      if (owner != helper) {
        return;
      }
      log.log(Level.FINE, "channel to {0}: name resolution failed: {1}", new Object[] {cfg.authority, status});
      policy.handleNameResolutionError(status);
      scheduleResolutionRetry();
    }
  }

  /** What the policy may do to the channel; stale once the policy is shut down. */
  private final class BalancerHelper extends LoadBalancer.Helper {
    @Override
    public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      sync.throwIfNotInThisSynchronizationContext();
      if (this != helper) {
        throw new IllegalStateException("the channel's load balancer was shut down");
      }
      return new Backend(args);
    }

    @Override
    public void updateBalancingState(ConnectivityState newState, LoadBalancer.SubchannelPicker newPicker) {
      sync.throwIfNotInThisSynchronizationContext();
      if (this != helper) {
        return;
      }
      synchronized (ChannelBalancer.this) {
        picker = newPicker;
        if (!shutdown) {
          setState(newState);
        }
      }
      repick(false);
    }

    @Override
    public void refreshNameResolution() {
      sync.throwIfNotInThisSynchronizationContext();
      if (this == helper && resolver != null) {
        resolver.refresh();
      }
    }

    @Override
    public SynchronizationContext getSynchronizationContext() {
      return sync;
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return scheduler;
    }

    @Override
    public String getAuthority() {
      return cfg.authority;
    }

    @Override
    public String getChannelTarget() {
      return resolver != null ? resolver.target().toString() : cfg.authority;
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return channelLogger;
    }

    @Override
    public io.grpc.MetricRecorder getMetricRecorder() {
      return cfg.metricRecorder;
    }

    @Override
    public ManagedChannel createOobChannel(EquivalentAddressGroup eag, String authority) {
      throw new UnsupportedOperationException("Tern channels make no out-of-band channels; a policy that"
          + " needs one (grpclb, xDS) is not supported");
    }
  }

  /** A subchannel: one backend's connection, its transports raced over the backend's addresses. */
  private final class Backend extends LoadBalancer.Subchannel implements ConnectionManager.StateListener {
    private final LoadBalancer.CreateSubchannelArgs args;
    final ConnectionManager connection;
    private volatile List<EquivalentAddressGroup> groups;
    private LoadBalancer.SubchannelStateListener listener;
    private boolean shutDown;

    Backend(LoadBalancer.CreateSubchannelArgs args) {
      this.args = args;
      this.groups = Collections.unmodifiableList(new ArrayList<>(args.getAddresses()));
      this.connection = new ConnectionManager(cfg, addressesOf(groups), scheduler, this, this::terminated);
      synchronized (ChannelBalancer.this) {
        backends.add(connection);
      }
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener l) {
      sync.throwIfNotInThisSynchronizationContext();
      if (listener != null) {
        throw new IllegalStateException("already started");
      }
      listener = l;
    }

    @Override
    public void stateChanged(ConnectivityState s, Status failure) {
      ConnectivityStateInfo info = s == ConnectivityState.TRANSIENT_FAILURE
          ? ConnectivityStateInfo.forTransientFailure(failure != null ? failure
              : Status.UNAVAILABLE.withDescription("connection failed"))
          : ConnectivityStateInfo.forNonError(s);
      inSync(() -> {
        if (listener != null) {
          listener.onSubchannelState(info);
        }
      });
    }

    private void terminated() {
      backendTerminated(connection);
    }

    @Override
    public void earlyDataPossible() {
      inSync(() -> repick(true));
    }

    @Override
    public void shutdown() {
      sync.throwIfNotInThisSynchronizationContext();
      if (!shutDown) {
        shutDown = true;
        connection.shutdown();
      }
    }

    @Override
    public void requestConnection() {
      connection.state(true);
    }

    @Override
    public List<EquivalentAddressGroup> getAllAddresses() {
      return groups;
    }

    @Override
    public void updateAddresses(List<EquivalentAddressGroup> addrs) {
      sync.throwIfNotInThisSynchronizationContext();
      if (addrs.isEmpty()) {
        throw new IllegalArgumentException("a subchannel needs at least one address");
      }
      groups = Collections.unmodifiableList(new ArrayList<>(addrs));
      List<SocketAddress> listed = new ArrayList<>();
      boolean deferred = false;
      for (EquivalentAddressGroup g : groups) {
        for (SocketAddress a : g.getAddresses()) {
          deferred |= a instanceof DeferredAddress;
          listed.add(a);
        }
      }
      connection.updateAddresses(addressesOf(groups), deferred ? null : listed);
    }

    @Override
    public Attributes getAttributes() {
      return args.getAttributes();
    }

    @Override
    public Channel asChannel() {
      return new BackendChannel(connection);
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return channelLogger;
    }

    @Override
    public Object getInternalSubchannel() {
      return this;
    }

    @Override
    public Attributes getConnectedAddressAttributes() {
      return Attributes.EMPTY;
    }

    @Override
    public String toString() {
      return "Backend" + groups;
    }
  }

  /**
   * Runs {@code r} in the synchronization context without running the context's queue on this
   * thread, which may hold a backend's lock.
   */
  private void inSync(Runnable r) {
    sync.executeLater(r);
    try {
      scheduler.execute(sync::drain);
    } catch (RejectedExecutionException e) {
      sync.drain(); // the channel has terminated: nothing holds a lock that matters any more
    }
  }

  /** A backend's addresses: a host-and-port target's resolved at each connect, else those listed. */
  private static Supplier<List<SocketAddress>> addressesOf(List<EquivalentAddressGroup> groups) {
    List<SocketAddress> fixed = new ArrayList<>();
    List<DeferredAddress> deferred = new ArrayList<>();
    for (EquivalentAddressGroup g : groups) {
      for (SocketAddress a : g.getAddresses()) {
        if (a instanceof DeferredAddress) {
          deferred.add((DeferredAddress) a);
        } else {
          fixed.add(a);
        }
      }
    }
    if (deferred.isEmpty()) {
      List<SocketAddress> all = Collections.unmodifiableList(new ArrayList<>(fixed));
      return () -> all;
    }
    return () -> {
      List<SocketAddress> all = new ArrayList<>(fixed);
      for (DeferredAddress d : deferred) {
        all.addAll(d.resolve.get());
      }
      return all;
    };
  }

  /** A subchannel as a channel (grpc-java's health checks call through it): calls go to its backend only. */
  private final class BackendChannel extends Channel {
    private final ConnectionManager backend;
    private final CallRouter direct;

    BackendChannel(ConnectionManager backend) {
      this.backend = backend;
      this.direct = new CallRouter() {
        @Override
        public void obtain(ConnectionManager.Waiter waiter, LoadBalancer.PickSubchannelArgs args,
            boolean waitForReady, boolean earlyData) {
          if (!BackendChannel.this.backend.obtain(waiter, waitForReady, false)) {
            waiter.failed(Status.UNAVAILABLE.withDescription("subchannel shut down"));
          }
        }

        @Override
        public void cancelWait(ConnectionManager.Waiter waiter) {
          BackendChannel.this.backend.cancelWait(waiter);
        }
      };
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(MethodDescriptor<ReqT, RespT> method,
        CallOptions callOptions) {
      return new TernClientCall<>(method, callOptions, cfg, direct, scheduler, callbackExecutor);
    }

    @Override
    public String authority() {
      return cfg.authority;
    }
  }

  // ---- The channel's state, idleness and shutdown ----

  /** Leaves every backend's ready connection whose transport {@code which} accepts (call policies). */
  void leaveConnections(java.util.function.Predicate<String> which) {
    List<ConnectionManager> all;
    synchronized (this) {
      all = new ArrayList<>(backends);
    }
    for (ConnectionManager b : all) {
      b.leaveIf(which);
    }
  }

  /** The device's network changed: every backend's ready connection moves or is left. */
  void networkChanged() {
    List<ConnectionManager> all;
    synchronized (this) {
      all = new ArrayList<>(backends);
    }
    for (ConnectionManager b : all) {
      b.networkChanged();
    }
  }

  /** A ready connection (the oldest backend's, when several are ready), or null if none is ready. */
  Connection current() {
    List<ConnectionManager> all;
    synchronized (this) {
      all = new ArrayList<>(backends);
    }
    for (ConnectionManager b : all) {
      Connection c = b.current();
      if (c != null) {
        return c;
      }
    }
    return null;
  }

  private void setState(ConnectivityState s) {
    if (state == s || state == ConnectivityState.SHUTDOWN) {
      return;
    }
    state = s;
    for (Runnable r : stateWatchers) {
      callbackExecutor.execute(r);
    }
    stateWatchers.clear();
  }

  ConnectivityState state(boolean requestConnection) {
    boolean exitIdle = false;
    boolean connect = false;
    ConnectivityState now;
    synchronized (this) {
      now = state;
      if (requestConnection && !shutdown) {
        if (!active) {
          active = true;
          exitIdle = true;
        } else if (state == ConnectivityState.IDLE) {
          connect = true;
        }
      }
    }
    if (exitIdle) {
      sync.execute(this::exitIdle);
    } else if (connect) {
      sync.execute(() -> {
        if (policy != null) {
          policy.requestConnection();
        }
      });
    }
    return now;
  }

  synchronized void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
    if (state != source) {
      callbackExecutor.execute(callback);
    } else {
      stateWatchers.add(callback);
    }
  }

  void resetBackoff() {
    List<ConnectionManager> all;
    synchronized (this) {
      all = new ArrayList<>(backends);
    }
    all.forEach(ConnectionManager::resetBackoff);
    sync.execute(() -> {
      resolutionBackoff.reset();
      if (resolutionRetry != null && resolutionRetry.isPending()) {
        resolutionRetry.cancel();
        resolutionRetry = null;
        resolver.refresh();
      }
    });
  }

  private void armIdleTimer() {
    if (cfg.idleTimeoutNanos > 0 && !shutdown && active) {
      idleArmed = true;
      idleDeadlineNanos = System.nanoTime() + cfg.idleTimeoutNanos;
      if (idleTimer == null) {
        idleTimer = scheduler.schedule(this::idleTimerFired, cfg.idleTimeoutNanos, TimeUnit.NANOSECONDS);
      }
    }
  }

  /**
   * No call for the idle timeout: the channel goes IDLE as grpc-java's does. The policy and the
   * resolver stop, the backends' connections close gracefully (no call runs on them), and the next
   * call starts everything again.
   */
  private void idleTimerFired() {
    synchronized (this) {
      idleTimer = null;
      if (!idleArmed || shutdown || !inUse.isEmpty() || !active) {
        return;
      }
      long left = idleDeadlineNanos - System.nanoTime();
      if (left > 0) {
        idleTimer = scheduler.schedule(this::idleTimerFired, left, TimeUnit.NANOSECONDS);
        return;
      }
    }
    sync.execute(this::enterIdle);
  }

  /**
   * Goes idle in the synchronization context, as a whole: the flag, the picker, the state and the
   * policy's stop together. A call that starts after the flag is cleared queues its
   * {@link #exitIdle} behind this task, so it finds the policy stopped and starts a new one (had
   * the state been set here and the stop queued, such a call would find the old policy running,
   * keep it, and leave the channel reporting IDLE while it carries calls on old connections).
   */
  private void enterIdle() {
    synchronized (this) {
      // A call since the timer fired either runs (inUse) or ended and re-armed a later deadline.
      if (!idleArmed || shutdown || !inUse.isEmpty() || !active || idleDeadlineNanos - System.nanoTime() > 0) {
        return;
      }
      idleArmed = false;
      active = false;
      picker = null;
      setState(ConnectivityState.IDLE);
    }
    log.log(Level.FINE, "channel to {0} idle: closing its connections", cfg.authority);
    stopPolicy();
  }

  void shutdown() {
    boolean stopNow;
    synchronized (this) {
      if (shutdown) {
        return;
      }
      shutdown = true;
      idleArmed = false;
      if (idleTimer != null) {
        idleTimer.cancel(false);
        idleTimer = null;
      }
      setState(ConnectivityState.SHUTDOWN);
      stopNow = pending.isEmpty();
    }
    // Calls already waiting for a pick keep the policy until they have a transport or end.
    if (stopNow) {
      sync.execute(this::shutDownPolicy);
    }
    maybeTerminated();
  }

  void shutdownNow() {
    shutdown();
    List<ConnectionManager.Waiter> fail;
    List<ConnectionManager> all;
    synchronized (this) {
      fail = new ArrayList<>(pending.keySet());
      pending.clear();
    }
    Status status = Status.UNAVAILABLE.withDescription("channel shutdownNow invoked");
    fail.forEach(w -> w.failed(status));
    sync.execute(this::shutDownPolicy);
    synchronized (this) {
      all = new ArrayList<>(backends);
    }
    all.forEach(ConnectionManager::shutdownNow);
    maybeTerminated();
  }

  private void backendTerminated(ConnectionManager backend) {
    synchronized (this) {
      backends.remove(backend);
    }
    maybeTerminated();
  }

  private void maybeTerminated() {
    synchronized (this) {
      if (!policyShutDown || terminated || !backends.isEmpty() || !pending.isEmpty()) {
        return;
      }
      terminated = true;
    }
    onTerminated.run();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ChannelBalancer{%s, %s}", cfg.authority, state);
  }
}
