package dev.tern.rpc;

import io.grpc.ChannelLogger;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.StatusOr;
import io.grpc.SynchronizationContext;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's addresses from a grpc-java {@link NameResolver} (one from the {@code
 * NameResolverRegistry} for the target's scheme, or the builder's {@code nameResolverFactory}).
 * The resolver starts at the channel's first connect, which waits for its first answer; every later
 * connect asks it to resolve again ({@link NameResolver#refresh()}, grpc-java's re-resolution after a
 * connection failure) and uses the latest answer at once. Every answer is passed to the channel,
 * which leaves a connection to an address no longer listed. {@link #get()} blocks and runs on the
 * channel's offload executor, never on a caller's thread.
 */
final class ResolverAddresses implements java.util.function.Supplier<List<SocketAddress>> {
  private static final Logger log = Logger.getLogger(ResolverAddresses.class.getName());

  private final URI target;
  private final NameResolver resolver;
  private final SynchronizationContext sync;
  private final long firstAnswerTimeoutNanos;
  private Consumer<List<SocketAddress>> onUpdate = a -> { };
  private List<SocketAddress> latest;
  private Status error;
  private boolean started;
  private boolean shutdown;

  /**
   * @param factory makes the resolver for {@code target}
   * @param defaultPort the port for addresses that name none (443 with TLS, 80 without)
   * @param firstAnswerTimeoutNanos how long the first connect waits for the resolver's first answer
   * @throws IllegalArgumentException if the factory gives no resolver for {@code target}
   */
  ResolverAddresses(NameResolver.Factory factory, URI target, int defaultPort, ScheduledExecutorService scheduler,
      Executor offload, long firstAnswerTimeoutNanos) {
    this.target = target;
    this.firstAnswerTimeoutNanos = firstAnswerTimeoutNanos;
    this.sync = new SynchronizationContext((t, e) ->
        log.log(Level.WARNING, "name resolver for " + target + " threw", e));
    NameResolver.Args args = NameResolver.Args.newBuilder()
        .setDefaultPort(defaultPort)
        // Tern connects directly (no proxies yet), as a grpc-java channel with no proxy configured.
        .setProxyDetector(address -> null)
        .setSynchronizationContext(sync)
        .setScheduledExecutorService(scheduler)
        .setServiceConfigParser(new NameResolver.ServiceConfigParser() {
          @Override
          public NameResolver.ConfigOrError parseServiceConfig(java.util.Map<String, ?> rawServiceConfig) {
            // Service configs are accepted but not applied yet (docs/transport-choice.md).
            return NameResolver.ConfigOrError.fromConfig(rawServiceConfig);
          }
        })
        .setChannelLogger(new ChannelLogger() {
          @Override
          public void log(ChannelLogLevel level, String message) {
            log.log(level == ChannelLogLevel.ERROR || level == ChannelLogLevel.WARNING ? Level.FINE : Level.FINEST,
                message);
          }

          @Override
          public void log(ChannelLogLevel level, String messageFormat, Object... args) {
            log(level, java.text.MessageFormat.format(messageFormat, args));
          }
        })
        .setOffloadExecutor(offload)
        .build();
    NameResolver r = factory.newNameResolver(target, args);
    if (r == null) {
      throw new IllegalArgumentException("the name resolver for scheme '" + target.getScheme()
          + "' does not accept target '" + target + "'");
    }
    this.resolver = r;
  }

  /** The authority the resolver gives for the target (the channel's authority by default). */
  String serviceAuthority() {
    return resolver.getServiceAuthority();
  }

  /** Where each answer goes (the channel's connection manager); set before the first {@link #get()}. */
  synchronized void onUpdate(Consumer<List<SocketAddress>> listener) {
    onUpdate = listener;
  }

  @Override
  public List<SocketAddress> get() {
    boolean first;
    synchronized (this) {
      if (shutdown) {
        throw Status.UNAVAILABLE.withDescription("channel is shut down").asRuntimeException();
      }
      first = !started;
      started = true;
    }
    if (first) {
      sync.execute(() -> resolver.start(new Listener()));
    } else {
      sync.execute(resolver::refresh);
    }
    synchronized (this) {
      long deadline = System.nanoTime() + firstAnswerTimeoutNanos;
      while (latest == null && error == null && !shutdown) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw Status.UNAVAILABLE.withDescription("name resolver for " + target + " gave no addresses within "
              + TimeUnit.NANOSECONDS.toMillis(firstAnswerTimeoutNanos) + " ms").asRuntimeException();
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw Status.UNAVAILABLE.withDescription("interrupted while resolving " + target).asRuntimeException();
        }
      }
      if (latest == null || latest.isEmpty()) {
        Status why = error != null ? error : Status.UNAVAILABLE.withDescription("no addresses");
        throw Status.UNAVAILABLE.withDescription("name resolution of " + target + " failed: " + why.getCode()
            + (why.getDescription() == null ? "" : ": " + why.getDescription())).withCause(why.getCause())
            .asRuntimeException();
      }
      return latest;
    }
  }

  /** Stops the resolver (the channel shut down). */
  void shutdown() {
    synchronized (this) {
      if (shutdown) {
        return;
      }
      shutdown = true;
      notifyAll();
    }
    sync.execute(resolver::shutdown);
  }

  private final class Listener extends NameResolver.Listener2 {
    @Override
    public void onResult(NameResolver.ResolutionResult result) {
      onResult2(result);
    }

    @Override
    public Status onResult2(NameResolver.ResolutionResult result) {
      StatusOr<List<EquivalentAddressGroup>> groups = result.getAddressesOrError();
      if (!groups.hasValue()) {
        onError(groups.getStatus());
        return groups.getStatus();
      }
      List<SocketAddress> addresses = new ArrayList<>();
      for (EquivalentAddressGroup g : groups.getValue()) {
        addresses.addAll(g.getAddresses());
      }
      if (addresses.isEmpty()) {
        Status empty = Status.UNAVAILABLE.withDescription("the resolver returned no addresses");
        onError(empty);
        return empty;
      }
      Consumer<List<SocketAddress>> tell;
      List<SocketAddress> now = List.copyOf(addresses);
      synchronized (ResolverAddresses.this) {
        latest = now;
        error = null;
        tell = onUpdate;
        ResolverAddresses.this.notifyAll();
      }
      tell.accept(now);
      return Status.OK;
    }

    @Override
    public void onError(Status status) {
      synchronized (ResolverAddresses.this) {
        error = status;
        ResolverAddresses.this.notifyAll();
      }
    }
  }
}
