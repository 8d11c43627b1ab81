package dev.tern.rpc;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.ConnectivityState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's connection: connects lazily on the first call, queues calls while connecting, fails
 * them with a status that says why when connecting fails, and reconnects with backoff.
 */
final class ConnectionManager {
  private static final Logger log = Logger.getLogger(ConnectionManager.class.getName());

  /** A call waiting for a ready transport. */
  interface Waiter {
    /** The transport is ready. */
    void ready(Connection connection);

    /** Connecting failed, or the channel shut down. */
    void failed(Status status);
  }

  private final ChannelConfig cfg;
  private final ScheduledExecutorService scheduler;
  private final Executor callbackExecutor;
  private final Runnable onTerminated;
  private final Backoff backoff;
  /** How a waiting call waits: through failures (wait-for-ready), and whether it may go early. */
  private static final class Mode {
    final boolean waitForReady;
    final boolean earlyData;

    Mode(boolean waitForReady, boolean earlyData) {
      this.waitForReady = waitForReady;
      this.earlyData = earlyData;
    }
  }

  private final Map<Waiter, Mode> waiters = new LinkedHashMap<>();
  private final Set<ClientTransport> live = ConcurrentHashMap.newKeySet();
  private final List<Runnable> stateWatchers = new ArrayList<>();
  private ConnectivityState state = ConnectivityState.IDLE;
  private Connection ready;
  private Attempt connecting;
  private Status lastFailure;
  private ScheduledFuture<?> reconnect;
  private boolean shutdown;
  private boolean terminated;

  ConnectionManager(ChannelConfig cfg, ScheduledExecutorService scheduler, Executor callbackExecutor,
      Runnable onTerminated) {
    this.cfg = cfg;
    this.scheduler = scheduler;
    this.callbackExecutor = callbackExecutor;
    this.onTerminated = onTerminated;
    this.backoff = new Backoff(cfg.initialBackoffNanos, cfg.maxBackoffNanos);
  }

  /**
   * Hands {@code waiter} a ready transport now or once connected. A call allowed early data gets
   * the transport as soon as it has started connecting, so a transport with 0-RTT can send it in
   * its first flight; the others wait until the handshake is done.
   */
  void obtain(Waiter waiter, boolean waitForReady, boolean earlyData) {
    Connection c = null;
    Status fail = null;
    Attempt start = null;
    synchronized (this) {
      if (shutdown) {
        fail = Status.UNAVAILABLE.withDescription("channel is shut down");
      } else if (ready != null) {
        c = ready;
      } else if (state == ConnectivityState.TRANSIENT_FAILURE && !waitForReady) {
        fail = lastFailure;
      } else if (earlyData && connecting != null && connecting.early != null) {
        c = connecting.early;
      } else {
        waiters.put(waiter, new Mode(waitForReady, earlyData));
        if (state == ConnectivityState.IDLE) {
          start = beginConnect();
        }
      }
    }
    if (c != null) {
      waiter.ready(c);
    } else if (fail != null) {
      waiter.failed(fail);
    }
    if (start != null) {
      start.start();
    }
  }

  /** Forgets a waiter whose call ended before a transport was ready. */
  synchronized void cancelWait(Waiter waiter) {
    waiters.remove(waiter);
  }

  synchronized ConnectivityState state(boolean requestConnection) {
    if (requestConnection && state == ConnectivityState.IDLE && !shutdown) {
      Attempt a = beginConnect();
      scheduler.execute(a::start);
    }
    return state;
  }

  synchronized void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
    if (state != source) {
      callbackExecutor.execute(callback);
    } else {
      stateWatchers.add(callback);
    }
  }

  /** The ready connection, or null. */
  synchronized Connection current() {
    return ready;
  }

  private Attempt beginConnect() {
    Attempt a = new Attempt();
    connecting = a;
    setState(ConnectivityState.CONNECTING);
    return a;
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

  void resetBackoff() {
    Attempt start = null;
    synchronized (this) {
      backoff.reset();
      if (reconnect != null && reconnect.cancel(false)) {
        reconnect = null;
        start = afterBackoff();
      }
    }
    if (start != null) {
      start.start();
    }
  }

  private Attempt afterBackoff() {
    if (shutdown) {
      return null;
    }
    setState(ConnectivityState.IDLE);
    return waiters.isEmpty() ? null : beginConnect();
  }

  void shutdown() {
    List<ClientTransport> close = new ArrayList<>();
    List<Waiter> fail = new ArrayList<>();
    synchronized (this) {
      if (shutdown) {
        return;
      }
      shutdown = true;
      setState(ConnectivityState.SHUTDOWN);
      if (reconnect != null) {
        reconnect.cancel(false);
      }
      if (connecting == null || waiters.isEmpty()) {
        fail.addAll(waiters.keySet());
        waiters.clear();
        close.addAll(live);
      } else if (ready != null) {
        close.add(ready.transport);
      }
    }
    Status status = Status.UNAVAILABLE.withDescription("channel shut down before a transport was ready");
    fail.forEach(w -> w.failed(status));
    close.forEach(ClientTransport::shutdown);
    maybeTerminated();
  }

  void shutdownNow() {
    shutdown();
    List<Waiter> fail;
    synchronized (this) {
      fail = new ArrayList<>(waiters.keySet());
      waiters.clear();
    }
    Status status = Status.UNAVAILABLE.withDescription("channel shutdownNow invoked");
    fail.forEach(w -> w.failed(status));
    for (ClientTransport t : new ArrayList<>(live)) {
      t.shutdownNow(status);
    }
    maybeTerminated();
  }

  private void maybeTerminated() {
    synchronized (this) {
      if (!shutdown || terminated || !live.isEmpty() || !waiters.isEmpty()) {
        return;
      }
      terminated = true;
    }
    onTerminated.run();
  }

  /** One attempt to connect: a transport and its listener. */
  private final class Attempt implements ClientTransport.Listener {
    private ClientTransport transport;
    private TransportProvider provider;
    private SocketAddress address;
    private ScheduledFuture<?> timeout;
    private boolean wasReady;
    /** The connection early-data calls use while the handshake runs; null until started. */
    Connection early;

    void start() {
      try {
        provider = cfg.selector.select();
        address = cfg.address.get();
        transport = provider.newClientTransport(address, cfg.authority, cfg.options);
      } catch (StatusRuntimeException e) {
        failedBeforeStart(e.getStatus());
        return;
      } catch (RuntimeException e) {
        failedBeforeStart(Status.UNAVAILABLE.withDescription("cannot create a transport to "
            + cfg.authority + ": " + e.getMessage()).withCause(e));
        return;
      }
      live.add(transport);
      timeout = scheduler.schedule(this::timedOut, cfg.handshakeTimeoutNanos, TimeUnit.NANOSECONDS);
      try {
        transport.start(this);
      } catch (RuntimeException e) {
        log.log(Level.WARNING, "transport start threw", e);
        transport.shutdownNow(Status.UNAVAILABLE.withCause(e));
        transportShutdown(Status.UNAVAILABLE.withDescription("transport failed to start: " + e).withCause(e));
        return;
      }
      releaseEarlyCalls();
    }

    /** Hands the calls allowed early data to the started transport. */
    private void releaseEarlyCalls() {
      Connection c = new Connection(transport, provider);
      List<Waiter> early = new ArrayList<>();
      synchronized (ConnectionManager.this) {
        if (connecting != this) {
          return;
        }
        this.early = c;
        for (Map.Entry<Waiter, Mode> e : new ArrayList<>(waiters.entrySet())) {
          if (e.getValue().earlyData) {
            early.add(e.getKey());
            waiters.remove(e.getKey());
          }
        }
      }
      for (Waiter w : early) {
        w.ready(c);
      }
    }

    private void failedBeforeStart(Status status) {
      transportShutdown(status);
    }

    private void timedOut() {
      boolean stillConnecting;
      synchronized (ConnectionManager.this) {
        stillConnecting = connecting == this;
      }
      if (stillConnecting) {
        transport.shutdownNow(Status.UNAVAILABLE.withDescription("handshake with " + address
            + " over " + provider.name() + " did not complete within "
            + TimeUnit.NANOSECONDS.toMillis(cfg.handshakeTimeoutNanos) + " ms"));
      }
    }

    @Override
    public void transportReady(ConnectionInfo info) {
      Connection c;
      synchronized (ConnectionManager.this) {
        c = early != null ? early : new Connection(transport, provider);
      }
      List<Waiter> serve;
      boolean closeAfter;
      synchronized (ConnectionManager.this) {
        if (connecting != this) {
          return;
        }
        timeout.cancel(false);
        wasReady = true;
        connecting = null;
        ready = c;
        backoff.reset();
        lastFailure = null;
        setState(ConnectivityState.READY);
        serve = new ArrayList<>(waiters.keySet());
        waiters.clear();
        closeAfter = shutdown;
      }
      for (Waiter w : serve) {
        w.ready(c);
      }
      if (closeAfter) {
        transport.shutdown();
      }
      if (cfg.connectionListener != null) {
        try {
          cfg.connectionListener.accept(info);
        } catch (RuntimeException e) {
          log.log(Level.WARNING, "connection listener threw", e);
        }
      }
    }

    @Override
    public void transportShutdown(Status status) {
      List<Waiter> fail = new ArrayList<>();
      Status failure;
      synchronized (ConnectionManager.this) {
        if (timeout != null) {
          timeout.cancel(false);
        }
        if (wasReady) {
          if (ready != null && ready.transport == transport) {
            ready = null;
            setState(ConnectivityState.IDLE);
          }
          return;
        }
        if (connecting != this) {
          return;
        }
        connecting = null;
        String via = provider == null ? "" : " over " + provider.name();
        failure = (status.getCode() == Status.Code.FAILED_PRECONDITION ? status : Status.UNAVAILABLE)
            .withDescription("connecting to " + cfg.authority + via + " failed: "
                + status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription()))
            .withCause(status.getCause());
        lastFailure = failure;
        for (Map.Entry<Waiter, Mode> e : new ArrayList<>(waiters.entrySet())) {
          if (shutdown || !e.getValue().waitForReady) {
            fail.add(e.getKey());
            waiters.remove(e.getKey());
          }
        }
        if (!shutdown) {
          setState(ConnectivityState.TRANSIENT_FAILURE);
          reconnect = scheduler.schedule(this::backoffOver, backoff.nextDelayNanos(), TimeUnit.NANOSECONDS);
        }
      }
      for (Waiter w : fail) {
        w.failed(failure);
      }
      if (transport == null) {
        maybeTerminated();
      }
    }

    private void backoffOver() {
      Attempt next;
      synchronized (ConnectionManager.this) {
        reconnect = null;
        next = afterBackoff();
      }
      if (next != null) {
        next.start();
      }
    }

    @Override
    public void transportTerminated() {
      live.remove(transport);
      maybeTerminated();
    }
  }
}
