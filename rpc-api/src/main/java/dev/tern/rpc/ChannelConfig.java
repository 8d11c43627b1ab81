package dev.tern.rpc;

import dev.tern.rpc.spi.TransportOptions;
import io.grpc.ClientInterceptor;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.SecurityLevel;
import java.net.SocketAddress;
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
  /** Request bytes the channel's uncommitted calls keep for a replay (see {@link DelayedClientStream}). */
  final java.util.concurrent.atomic.AtomicLong retryBuffered = new java.util.concurrent.atomic.AtomicLong();
  /**
   * The channel's transport filters ({@code addTransportFilter}): to be told of each connection
   * the channel uses when it is ready and when it has terminated. Set once by the builder.
   */
  ClientTransportFilters transportFilters = ClientTransportFilters.NONE;

  ChannelConfig(Supplier<List<SocketAddress>> address, String authority, TransportSelector selector,
      TransportOptions options, Executor executor, List<ClientInterceptor> interceptors,
      CompressorRegistry compressors, DecompressorRegistry decompressors, int maxInboundMessageSize,
      int[] protocolVersions, SecurityLevel securityLevel, long handshakeTimeoutNanos,
      long initialBackoffNanos, long maxBackoffNanos, Consumer<ConnectionInfo> connectionListener,
      long raceHeadStartNanos, TransportMemory memory, Executor offloadExecutor, long idleTimeoutNanos) {
    this.address = address;
    this.authority = authority;
    this.selector = selector;
    this.options = options;
    this.executor = executor;
    this.interceptors = List.copyOf(interceptors);
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
