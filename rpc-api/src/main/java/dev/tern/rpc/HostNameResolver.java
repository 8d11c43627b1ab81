package dev.tern.rpc;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.ProxyDetector;
import io.grpc.Status;
import io.grpc.StatusOr;
import io.grpc.SynchronizationContext;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A {@code host:port} target resolved as grpc-java's DNS resolver answers, for load-balancing
 * policies that want one address group per address ({@code round_robin}): the host's addresses (in
 * the order {@link TernChannelBuilder#resolveAll(String, int, ProxyDetector)} gives them, through
 * the channel's proxy detector) as one {@link EquivalentAddressGroup} each. Lookups run on the
 * channel's offload executor, never on a caller's thread; {@link #refresh()} looks up again.
 */
final class HostNameResolver extends NameResolver {
  private final String host;
  private final int port;
  private final String authority;
  private final ProxyDetector proxies;
  private final Executor offload;
  private final SynchronizationContext sync;
  private Listener2 listener;
  private boolean resolving;
  private boolean shutdown;

  HostNameResolver(String host, int port, String authority, ProxyDetector proxies, Args args) {
    this.host = host;
    this.port = port;
    this.authority = authority;
    this.proxies = proxies;
    this.offload = args.getOffloadExecutor();
    this.sync = args.getSynchronizationContext();
  }

  /** A factory that makes this resolver whatever the target URI (the builder has already parsed it). */
  static NameResolver.Factory factory(String host, int port, String authority, ProxyDetector proxies) {
    return new NameResolver.Factory() {
      @Override
      public NameResolver newNameResolver(java.net.URI targetUri, Args args) {
        return new HostNameResolver(host, port, authority, proxies, args);
      }

      @Override
      public String getDefaultScheme() {
        return "dns";
      }
    };
  }

  @Override
  public String getServiceAuthority() {
    return authority;
  }

  @Override
  public void start(Listener2 l) {
    listener = l;
    resolve();
  }

  @Override
  public void refresh() {
    resolve();
  }

  private void resolve() {
    if (resolving || shutdown || listener == null) {
      return;
    }
    resolving = true;
    try {
      offload.execute(this::lookUp);
    } catch (RejectedExecutionException e) {
      resolving = false;
      listener.onError(Status.UNAVAILABLE.withDescription("the channel's offload executor refused to resolve "
          + authority).withCause(e));
    }
  }

  private void lookUp() {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    Status error = null;
    try {
      for (SocketAddress a : TernChannelBuilder.resolveAll(host, port, proxies)) {
        groups.add(new EquivalentAddressGroup(a));
      }
    } catch (RuntimeException e) {
      error = io.grpc.Status.fromThrowable(e).getCode() == Status.Code.UNKNOWN
          ? Status.UNAVAILABLE.withDescription("resolving " + authority + " failed: " + e).withCause(e)
          : Status.fromThrowable(e);
    }
    Status failure = error;
    sync.execute(() -> {
      resolving = false;
      if (shutdown) {
        return;
      }
      if (failure != null) {
        listener.onError(failure);
      } else {
        listener.onResult2(ResolutionResult.newBuilder().setAddressesOrError(StatusOr.fromValue(groups)).build());
      }
    });
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }
}
