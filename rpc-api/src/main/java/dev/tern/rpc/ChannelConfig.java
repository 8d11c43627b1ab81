package dev.tern.rpc;

import dev.tern.rpc.spi.TransportOptions;
import io.grpc.ClientInterceptor;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.SecurityLevel;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** What a {@link TernChannelBuilder} was told, frozen at {@code build()}. */
final class ChannelConfig {
  /** Resolves the target to every address to try, in order (blocking: run on the offload executor). */
  final Supplier<List<SocketAddress>> address;
  final String authority;
  final TransportSelector selector;
  final TransportOptions options;
  final Executor executor;
  final List<ClientInterceptor> interceptors;
  final CompressorRegistry compressors;
  final DecompressorRegistry decompressors;
  final int maxInboundMessageSize;
  final int[] protocolVersions;
  final SecurityLevel securityLevel;
  final long handshakeTimeoutNanos;
  final long initialBackoffNanos;
  final long maxBackoffNanos;
  final Consumer<ConnectionInfo> connectionListener;
  final long raceHeadStartNanos;
  final TransportMemory memory;
  /** Where blocking work (resolving the address) runs: the builder's offload executor, else a shared pool. */
  final Executor offloadExecutor;
  /** How long the channel stays connected with no call before it goes idle; 0 never. */
  final long idleTimeoutNanos;
  /** Where the channel's name resolution, load balancer and subchannel states run. */
  final io.grpc.SynchronizationContext sync;
  /** Request bytes the channel's uncommitted calls keep for a replay (see {@link DelayedClientStream}). */
  final java.util.concurrent.atomic.AtomicLong retryBuffered = new java.util.concurrent.atomic.AtomicLong();
  /**
   * The service config the channel's calls get now ({@link ServiceConfigInterceptor} reads it on
   * each call): the builder's default (or {@link ServiceConfigs#empty()}) until name resolution
   * replaces it with the resolver's config, chosen by {@link ServiceConfigs#effective}.
   */
  final java.util.concurrent.atomic.AtomicReference<ServiceConfigs> serviceConfig;
  /** The builder's {@code defaultServiceConfig} parsed; null if none was set. */
  final ServiceConfigs defaultServiceConfig;
  /** False after {@code disableServiceConfigLookUp()}: a resolver's service config is not used. */
  final boolean serviceConfigLookUp;
  /** Retries on or off and the attempt caps, which a resolver's service config is parsed within. */
  final ServiceConfigs.Limits serviceConfigLimits;
  /** Parses a resolver's service config within {@link #serviceConfigLimits}: give it to the resolver's args. */
  final io.grpc.NameResolver.ServiceConfigParser serviceConfigParser;
  /**
   * The channel's transport filters ({@code addTransportFilter}): to be told of each connection
   * the channel uses when it is ready and when it has terminated. Set once by the builder.
   */
  ClientTransportFilters transportFilters = ClientTransportFilters.NONE;
  /** Where the channel counts ({@code TernChannelBuilder.metrics}); set once by the builder. */
  dev.tern.rpc.metrics.TernMetrics metrics = dev.tern.rpc.metrics.TernMetrics.create();
  /** The channel's name in {@link #metrics}; set once by the builder. */
  String metricsScope = "channel";
  /** Where the load-balancing policy's metrics go: the builder's metric sinks ({@code addMetricSink}). */
  io.grpc.MetricRecorder metricRecorder = SinkMetricRecorder.of(java.util.Collections.emptyList());

  /** The channel's counters for {@code transport} ({@code none}: calls that never got a stream). */
  dev.tern.rpc.metrics.TransportMetrics metrics(String transport) {
    return metrics.transport(dev.tern.rpc.metrics.TernMetrics.Side.CLIENT, metricsScope, transport);
  }
  /**
   * The call policies' say in the transport races ({@link
   * dev.tern.rpc.spi.CallPolicyProvider.ChannelPolicies#transportAllowed}); set once when the
   * channel is made, null without a policy provider.
   */
  volatile dev.tern.rpc.spi.CallPolicyProvider.ChannelPolicies policies;

  /** Whether the call policies let {@code transport} race now. */
  boolean transportAllowed(String transport) {
    dev.tern.rpc.spi.CallPolicyProvider.ChannelPolicies p = policies;
    return p == null || p.transportAllowed(transport);
  }

  ChannelConfig(Supplier<List<SocketAddress>> address, String authority, TransportSelector selector,
      TransportOptions options, Executor executor, List<ClientInterceptor> interceptors,
      CompressorRegistry compressors, DecompressorRegistry decompressors, int maxInboundMessageSize,
      int[] protocolVersions, SecurityLevel securityLevel, long handshakeTimeoutNanos,
      long initialBackoffNanos, long maxBackoffNanos, Consumer<ConnectionInfo> connectionListener,
      long raceHeadStartNanos, TransportMemory memory, Executor offloadExecutor, long idleTimeoutNanos,
      io.grpc.SynchronizationContext sync, ServiceConfigs defaultServiceConfig, boolean serviceConfigLookUp,
      ServiceConfigs.Limits serviceConfigLimits) {
    this.address = address;
    this.authority = authority;
    this.selector = selector;
    this.options = options;
    this.executor = executor;
    this.interceptors = Collections.unmodifiableList(new ArrayList<>(interceptors));
    this.compressors = compressors;
    this.decompressors = decompressors;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.protocolVersions = protocolVersions;
    this.securityLevel = securityLevel;
    this.handshakeTimeoutNanos = handshakeTimeoutNanos;
    this.initialBackoffNanos = initialBackoffNanos;
    this.maxBackoffNanos = maxBackoffNanos;
    this.connectionListener = connectionListener;
    this.raceHeadStartNanos = raceHeadStartNanos;
    this.memory = memory;
    this.offloadExecutor = offloadExecutor != null ? offloadExecutor : SharedResolver.POOL;
    this.idleTimeoutNanos = idleTimeoutNanos;
    this.sync = sync;
    this.defaultServiceConfig = defaultServiceConfig;
    this.serviceConfig = new java.util.concurrent.atomic.AtomicReference<>(
        defaultServiceConfig != null ? defaultServiceConfig : ServiceConfigs.empty());
    this.serviceConfigLookUp = serviceConfigLookUp;
    this.serviceConfigLimits = serviceConfigLimits;
    this.serviceConfigParser = ServiceConfigs.resolverParser(serviceConfigLimits);
  }

  /** A synchronization context whose uncaught exceptions are logged as the channel's. */
  static io.grpc.SynchronizationContext newSync(String authority) {
    java.util.logging.Logger log = java.util.logging.Logger.getLogger(TernManagedChannel.class.getName());
    return new io.grpc.SynchronizationContext((t, e) -> log.log(java.util.logging.Level.SEVERE,
        "channel to " + authority + ": uncaught exception in its load balancer or name resolver", e));
  }

  /** The pool channels without an offload executor resolve on; its idle threads exit. */
  private static final class SharedResolver {
    static final Executor POOL = DaemonThreads.cachedPool("tern-resolver");
    /** The timer grpc-java name resolvers are given (their retries), shared by every channel. */
    static final java.util.concurrent.ScheduledExecutorService TIMER = timer();

    private static java.util.concurrent.ScheduledExecutorService timer() {
      java.util.concurrent.ScheduledThreadPoolExecutor t = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
          DaemonThreads.factory("tern-resolver-timer"));
      t.setRemoveOnCancelPolicy(true);
      return t;
    }
  }

  static Executor resolverPool() {
    return SharedResolver.POOL;
  }

  static java.util.concurrent.ScheduledExecutorService resolverTimer() {
    return SharedResolver.TIMER;
  }
}
