package dev.tern.rpc;

import io.grpc.Attributes;
import io.grpc.ChannelLogger;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.StatusOr;
import io.grpc.SynchronizationContext;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's name resolution through a grpc-java {@link NameResolver} (one from the {@code
 * NameResolverRegistry} for the target's scheme, or the builder's {@code nameResolverFactory}).
 * The channel starts it when it leaves idle and stops it when it goes idle or shuts down (a stopped
 * resolver cannot start again, so each start after the first makes a new one, as grpc-java's
 * channel does); the channel's load balancer asks it to resolve again through {@link #refresh()}
 * (grpc-java's re-resolution after a connection failure). Every call runs in the channel's
 * synchronization context, the one the resolver was given.
 */
final class ResolverAddresses {

  /** Receives the resolver's answers, in the channel's synchronization context. */
  interface Listener {
    /**
     * New addresses.
     *
     * @param serviceConfig the resolver's service config (parsed by the channel), or null if it gave none
     */
    Status addresses(List<EquivalentAddressGroup> groups, Attributes attributes,
        NameResolver.ConfigOrError serviceConfig);

    /** Resolution failed; the channel retries it with backoff. */
    void error(Status status);
  }

  private final NameResolver.Factory factory;
  private final URI target;
  private final NameResolver.Args args;
  /** The resolver made at construction (to check the target and give the authority); used by the first start. */
  private NameResolver unstarted;
  private NameResolver running;

  /**
   * @param factory makes the resolver for {@code target}
   * @param defaultPort the port for addresses that name none (443 with TLS, 80 without)
   * @param proxies the channel's proxy detector, which resolvers consult as grpc-java's DNS one does
   * @param sync the channel's synchronization context, shared with its load balancer
   * @param serviceConfigParser parses the service configs the resolver finds
   * @throws IllegalArgumentException if the factory gives no resolver for {@code target}
   */
  ResolverAddresses(NameResolver.Factory factory, URI target, int defaultPort, io.grpc.ProxyDetector proxies,
      ScheduledExecutorService scheduler, Executor offload, SynchronizationContext sync,
      NameResolver.ServiceConfigParser serviceConfigParser, io.grpc.MetricRecorder metricRecorder) {
    this.factory = factory;
    this.target = target;
    this.args = NameResolver.Args.newBuilder()
        .setDefaultPort(defaultPort)
        .setProxyDetector(proxies)
        .setSynchronizationContext(sync)
        .setScheduledExecutorService(scheduler)
        .setServiceConfigParser(serviceConfigParser)
        .setChannelLogger(ChannelLoggers.forClass(ResolverAddresses.class))
        .setOffloadExecutor(offload)
        .setMetricRecorder(metricRecorder)
        .build();
    this.unstarted = newResolver();
  }

  private NameResolver newResolver() {
    NameResolver r = factory.newNameResolver(target, args);
    if (r == null) {
      throw new IllegalArgumentException("the name resolver for scheme '" + target.getScheme()
          + "' does not accept target '" + target + "'");
    }
    return r;
  }

  /** The target, for messages. */
  URI target() {
    return target;
  }

  /** The authority the resolver gives for the target (the channel's authority by default). */
  String serviceAuthority() {
    return (unstarted != null ? unstarted : newResolver()).getServiceAuthority();
  }

  /** Starts resolving (in the synchronization context); answers go to {@code listener}. */
  void start(Listener listener) {
    if (running != null) {
      return;
    }
    NameResolver r = unstarted != null ? unstarted : newResolver();
    unstarted = null;
    running = r;
    r.start(new Forward(r, listener));
  }

  /** Asks the running resolver to resolve again (in the synchronization context). */
  void refresh() {
    if (running != null) {
      running.refresh();
    }
  }

  /** Stops the running resolver, if any (in the synchronization context). */
  void shutdown() {
    if (running != null) {
      running.shutdown();
      running = null;
    }
  }

  /** Passes on the answers of one resolver while it is the running one. */
  private final class Forward extends NameResolver.Listener2 {
    private final NameResolver owner;
    private final Listener listener;

    Forward(NameResolver owner, Listener listener) {
      this.owner = owner;
      this.listener = listener;
    }

    @Override
    public void onResult(NameResolver.ResolutionResult result) {
      args.getSynchronizationContext().execute(() -> onResult2(result));
    }

    @Override
    public Status onResult2(NameResolver.ResolutionResult result) {
      if (running != owner) {
        return Status.OK; // an answer of a resolver stopped since
      }
      StatusOr<List<EquivalentAddressGroup>> groups = result.getAddressesOrError();
      if (!groups.hasValue()) {
        listener.error(groups.getStatus());
        return groups.getStatus();
      }
      return listener.addresses(groups.getValue(), result.getAttributes(), result.getServiceConfig());
    }

    @Override
    public void onError(Status status) {
      args.getSynchronizationContext().execute(() -> {
        if (running == owner) {
          listener.error(status);
        }
      });
    }
  }

  /** grpc-java's channel loggers, onto java.util.logging: errors and warnings at FINE, the rest FINEST. */
  static final class ChannelLoggers {
    private ChannelLoggers() {}

    static ChannelLogger forClass(Class<?> owner) {
      Logger l = Logger.getLogger(owner.getName());
      return new ChannelLogger() {
        @Override
        public void log(ChannelLogLevel level, String message) {
          Level at = level == ChannelLogLevel.ERROR || level == ChannelLogLevel.WARNING ? Level.FINE : Level.FINEST;
          if (l.isLoggable(at)) {
            l.log(at, message);
          }
        }

        @Override
        public void log(ChannelLogLevel level, String messageFormat, Object... args) {
          Level at = level == ChannelLogLevel.ERROR || level == ChannelLogLevel.WARNING ? Level.FINE : Level.FINEST;
          if (l.isLoggable(at)) {
            l.log(at, java.text.MessageFormat.format(messageFormat, args));
          }
        }
      };
    }
  }
}
