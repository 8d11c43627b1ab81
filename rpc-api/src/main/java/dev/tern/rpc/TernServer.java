package dev.tern.rpc;

import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.SecurityLevel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The {@link Server} that {@link TernServerBuilder#build()} returns: one registry, many transports. */
final class TernServer extends Server {
  /** One transport to listen on. */
  static final class Listen {
    final String transport;
    final SocketAddress address;

    Listen(String transport, SocketAddress address) {
      this.transport = transport;
      this.address = address;
    }
  }

  private final ServerConfig cfg;
  private final List<Listen> listens;
  private final TransportOptions options;
  private final TransportSelector providers;
  private final ExecutorService ownedExecutor;
  private final List<ServerTransport> transports = new ArrayList<>();
  /** The provider of each of {@link #transports}, in the same order. */
  private final List<TransportProvider> listening = new ArrayList<>();
  /** The {@code alt-svc} value for calls on each transport, by name; none for a transport not there. */
  private volatile Map<String, String> advertisements = Collections.emptyMap();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private ScheduledThreadPoolExecutor scheduler;
  private int live;
  private boolean started;
  private volatile boolean shutdown;

  TernServer(ServerConfig cfg, List<Listen> listens, TransportOptions options,
      TransportSelector providers, ExecutorService ownedExecutor) {
    this.cfg = cfg;
    this.listens = Collections.unmodifiableList(new ArrayList<>(listens));
    this.options = options;
    this.providers = providers;
    this.ownedExecutor = ownedExecutor;
  }

  @Override
  public synchronized Server start() throws IOException {
    if (started) {
      throw new IllegalStateException("server already started");
    }
    if (shutdown) {
      throw new IllegalStateException("server shut down");
    }
    started = true;
    scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.factory("tern-server-timer"));
    scheduler.setRemoveOnCancelPolicy(true);
    try {
      for (Listen l : listens) {
        TransportProvider p = providers.provider(l.transport);
        if (p == null || !p.isAvailable()) {
          throw new IOException("cannot listen on " + l.address + " with transport '" + l.transport + "': "
              + (p == null ? "no such transport on the class path" : p.unavailableReason()));
        }
        TransportMetrics metrics = cfg.metrics.transport(TernMetrics.Side.SERVER, cfg.metricsScope, l.transport);
        ServerTransport t = p.newServerTransport(l.address, options.with(TransportOptions.EVENTS, metrics));
        SecurityLevel level = options.get(TransportOptions.TLS) == null ? SecurityLevel.NONE
            : SecurityLevel.PRIVACY_AND_INTEGRITY;
        t.start(new ServerCallDispatcher(this, cfg, l.transport,
            p.versionHandshake() == TransportProvider.VersionHandshake.PER_CALL_HEADER, level, scheduler, metrics));
        transports.add(t);
        listening.add(p);
        live++;
      }
      advertisements = advertisements();
    } catch (IOException | RuntimeException e) {
      shutdownNow();
      throw e;
    }
    if (live == 0) {
      allTerminated();
    }
    return this;
  }

  /**
   * The {@code alt-svc} value for the response headers of calls on {@code transport}: the
   * advertised transports this server also listens with that clients prefer to it ({@code udp},
   * then {@code quic}, then other datagram transports, over TCP), or null if there is none.
   */
  String advertisement(String transport) {
    return advertisements.get(transport);
  }

  /** What each transport's calls advertise (see {@link #advertisement}); under this server's lock. */
  private Map<String, String> advertisements() {
    if (cfg.advertisementMaxAgeSeconds < 0) {
      return Collections.emptyMap();
    }
    Map<String, String> out = new HashMap<>();
    for (TransportProvider carrier : listening) {
      List<AltSvc.Alternative> alts = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < transports.size(); i++) {
        TransportProvider p = listening.get(i);
        String id = p.altSvcProtocolId();
        if (id == null || rank(p) >= rank(carrier)
            || !(transports.get(i).listenAddress() instanceof InetSocketAddress at)
            || !seen.add(id + ":" + at.getPort())) {
          continue;
        }
        alts.add(new AltSvc.Alternative(id, "", at.getPort(), cfg.advertisementMaxAgeSeconds, true,
            p.altSvcParameters(options)));
      }
      if (!alts.isEmpty()) {
        out.put(carrier.name(), AltSvc.format(alts));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /** How much clients prefer a transport: lower is better, as the channel's default preference. */
  private static int rank(TransportProvider p) {
    int i = TransportSelector.DEFAULT_PREFERENCE.indexOf(p.name());
    if (i >= 0 && p.isDatagram()) {
      return i;
    }
    return p.isDatagram() ? TransportSelector.DEFAULT_PREFERENCE.size() : TransportSelector.DEFAULT_PREFERENCE.size() + 1;
  }

  synchronized void transportTerminated() {
    if (--live == 0 && shutdown) {
      allTerminated();
    }
  }

  private void allTerminated() {
    if (scheduler != null) {
      scheduler.shutdown();
    }
    if (ownedExecutor != null) {
      ownedExecutor.shutdown();
    }
    terminated.countDown();
  }

  @Override
  public int getPort() {
    for (SocketAddress a : getListenSockets()) {
      if (a instanceof InetSocketAddress) {
        return ((InetSocketAddress) a).getPort();
      }
    }
    return -1;
  }

  @Override
  public synchronized List<? extends SocketAddress> getListenSockets() {
    List<SocketAddress> out = new ArrayList<>();
    for (ServerTransport t : transports) {
      out.add(t.listenAddress());
    }
    return out;
  }

  @Override
  public List<ServerServiceDefinition> getServices() {
    return cfg.registry.getServices();
  }

  @Override
  public List<ServerServiceDefinition> getImmutableServices() {
    return cfg.registry.getServices();
  }

  @Override
  public List<ServerServiceDefinition> getMutableServices() {
    return Collections.emptyList();
  }

  @Override
  public Server shutdown() {
    List<ServerTransport> close;
    synchronized (this) {
      if (shutdown) {
        return this;
      }
      shutdown = true;
      close = new ArrayList<>(transports);
      if (!started || live == 0) {
        allTerminated();
      }
    }
    close.forEach(ServerTransport::shutdown);
    return this;
  }

  @Override
  public Server shutdownNow() {
    shutdown();
    List<ServerTransport> close;
    synchronized (this) {
      close = new ArrayList<>(transports);
    }
    Status status = Status.UNAVAILABLE.withDescription("server shut down now");
    close.forEach(t -> t.shutdownNow(status));
    return this;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return terminated.getCount() == 0;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return terminated.await(timeout, unit);
  }

  @Override
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  @Override
  public String toString() {
    return "TernServer" + getListenSockets();
  }
}
