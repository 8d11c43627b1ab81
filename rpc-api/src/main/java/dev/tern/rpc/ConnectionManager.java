package dev.tern.rpc;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.ConnectivityState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
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
 * A channel's connection: connects lazily on the first call (a {@link TransportRace} between the
 * candidate transports), queues calls until the race has a winner, fails them with a status that
 * says why when every candidate failed, and reconnects with backoff.
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
  /** Calls that asked for a connection and have not ended: while there is one, the channel is not idle. */
  private final Set<Waiter> inUse = new HashSet<>();
  /**
   * The idle timer's wake-up, null when none is scheduled. It is not cancelled when a call starts
   * nor rescheduled when one ends (as grpc-java's {@code Rescheduler}): a call costs no timer
   * operation; a wake-up that comes early, or while calls run, schedules the rest or nothing.
   */
  private ScheduledFuture<?> idleTimer;
  /** Whether the channel is idle-timing (no call in use); {@link #idleDeadlineNanos} is then valid. */
  private boolean idleArmed;
  private long idleDeadlineNanos;
  private final Set<ClientTransport> live = ConcurrentHashMap.newKeySet();
  /** Transports that carried calls and then shut down (a GOAWAY): their calls still run. */
  private final Set<ClientTransport> draining = ConcurrentHashMap.newKeySet();
  private final List<Runnable> stateWatchers = new ArrayList<>();
  private ConnectivityState state = ConnectivityState.IDLE;
  private Connection ready;
  private TransportRace connecting;
  /** The first candidate of the race under way, for calls allowed early data; null if none. */
  private Connection early;
  private final RaceOutcome outcome = new RaceOutcome();
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
    if (cfg.address instanceof ResolverAddresses) {
      ((ResolverAddresses) cfg.address).onUpdate(this::addressesChanged);
    }
  }

  /**
   * The name resolver gave new addresses: a connection to an address no longer listed is left, as
   * grpc-java's pick_first leaves it (its calls finish; the next call connects to the new list).
   */
  private void addressesChanged(List<java.net.SocketAddress> addresses) {
    ClientTransport leave = null;
    synchronized (this) {
      if (shutdown || ready == null) {
        return;
      }
      java.net.SocketAddress at = ready.info().remoteAddress();
      if (at != null && !addresses.contains(at)) {
        leave = ready.transport;
        draining.add(leave);
        ready = null;
        setState(ConnectivityState.IDLE);
      }
    }
    if (leave != null) {
      log.log(Level.FINE, "channel to {0}: {1} is no longer among the resolved addresses; reconnecting",
          new Object[] {cfg.authority, leave});
      leave.shutdown();
    }
  }

  /**
   * Hands {@code waiter} a ready transport now or once connected. A call allowed early data gets
   * the transport as soon as it has started connecting, so a transport with 0-RTT can send it in
   * its first flight; the others wait until the handshake is done. A wait-for-ready call waits for
   * the handshake even when allowed early data: a stream opened on a connection that then fails
   * would fail the call, where wait-for-ready promises to wait through connection failures.
   */
  void obtain(Waiter waiter, boolean waitForReady, boolean earlyData) {
    Connection c = null;
    Status fail = null;
    TransportRace start = null;
    synchronized (this) {
      if (!shutdown) {
        inUse.add(waiter);
        disarmIdleTimer();
      }
      if (shutdown) {
        fail = Status.UNAVAILABLE.withDescription("channel is shut down");
      } else if (ready != null) {
        c = ready;
      } else if (state == ConnectivityState.TRANSIENT_FAILURE && !waitForReady) {
        fail = lastFailure;
      } else if (earlyData && !waitForReady && connecting != null && early != null) {
        c = early;
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

  /**
   * A call ended (whether or not a transport was ready for it): forgets it, and once no call is
   * left, arms the idle timer.
   */
  synchronized void cancelWait(Waiter waiter) {
    waiters.remove(waiter);
    if (inUse.remove(waiter) && inUse.isEmpty()) {
      armIdleTimer();
    }
  }

  private void armIdleTimer() {
    if (cfg.idleTimeoutNanos > 0 && !shutdown && ready != null) {
      idleArmed = true;
      idleDeadlineNanos = System.nanoTime() + cfg.idleTimeoutNanos;
      if (idleTimer == null) {
        idleTimer = scheduler.schedule(this::idleTimerFired, cfg.idleTimeoutNanos, TimeUnit.NANOSECONDS);
      }
    }
  }

  private void disarmIdleTimer() {
    idleArmed = false;
  }

  private void cancelIdleTimer() {
    idleArmed = false;
    if (idleTimer != null) {
      idleTimer.cancel(false);
      idleTimer = null;
    }
  }

  /**
   * No call for the idle timeout: the channel goes IDLE as grpc-java's does. Its connection is
   * closed gracefully (no call runs on it) and the next call connects again.
   */
  private void idleTimerFired() {
    ClientTransport close;
    synchronized (this) {
      idleTimer = null;
      if (!idleArmed || shutdown || !inUse.isEmpty() || ready == null) {
        return;
      }
      long left = idleDeadlineNanos - System.nanoTime();
      if (left > 0) {
        idleTimer = scheduler.schedule(this::idleTimerFired, left, TimeUnit.NANOSECONDS);
        return;
      }
      idleArmed = false;
      close = ready.transport;
      draining.add(close);
      ready = null;
      backoff.reset();
      setState(ConnectivityState.IDLE);
    }
    log.log(Level.FINE, "channel to {0} idle: closing its connection", cfg.authority);
    close.shutdown();
  }

  synchronized ConnectivityState state(boolean requestConnection) {
    if (requestConnection && state == ConnectivityState.IDLE && !shutdown) {
      TransportRace a = beginConnect();
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

  private TransportRace beginConnect() {
    TransportRace a = new TransportRace(cfg, scheduler, outcome);
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
    TransportRace start = null;
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

  private TransportRace afterBackoff() {
    if (shutdown) {
      return null;
    }
    setState(ConnectivityState.IDLE);
    return waiters.isEmpty() ? null : beginConnect();
  }

  void shutdown() {
    if (cfg.address instanceof ResolverAddresses) {
      ((ResolverAddresses) cfg.address).shutdown();
    }
    List<ClientTransport> close = new ArrayList<>();
    List<ClientTransport> closeNow = new ArrayList<>();
    List<Waiter> fail = new ArrayList<>();
    synchronized (this) {
      if (shutdown) {
        return;
      }
      shutdown = true;
      cancelIdleTimer();
      setState(ConnectivityState.SHUTDOWN);
      if (reconnect != null) {
        reconnect.cancel(false);
      }
      if (connecting == null || waiters.isEmpty()) {
        if (connecting != null) {
          connecting.abandon();
        }
        fail.addAll(waiters.keySet());
        waiters.clear();
        // Calls on the ready transport (or started early on the first racer) run to completion;
        // racers that carry no calls go now.
        for (ClientTransport t : live) {
          boolean carriesCalls = ready != null && ready.transport == t || early != null && early.transport == t
              || draining.contains(t);
          (carriesCalls ? close : closeNow).add(t);
        }
      } else if (ready != null) {
        close.add(ready.transport);
      }
    }
    Status status = Status.UNAVAILABLE.withDescription("channel shut down before a transport was ready");
    fail.forEach(w -> w.failed(status));
    close.forEach(ClientTransport::shutdown);
    closeNow.forEach(t -> t.shutdownNow(Status.UNAVAILABLE.withDescription("channel shut down")));
    maybeTerminated();
  }

  void shutdownNow() {
    shutdown();
    List<Waiter> fail;
    synchronized (this) {
      if (connecting != null) {
        connecting.abandon();
      }
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

  /** Hears the current race and applies its outcome to the channel's state. */
  private final class RaceOutcome implements TransportRace.Outcome {
    @Override
    public void created(ClientTransport transport) {
      live.add(transport);
    }

    @Override
    public void started(TransportRace race, Connection first) {
      List<Waiter> release = new ArrayList<>();
      synchronized (ConnectionManager.this) {
        if (connecting != race || !race.firstMayCarryEarlyData()) {
          return; // early calls wait for the winner like the others
        }
        early = first;
        for (Map.Entry<Waiter, Mode> e : new ArrayList<>(waiters.entrySet())) {
          if (e.getValue().earlyData && !e.getValue().waitForReady) {
            release.add(e.getKey());
            waiters.remove(e.getKey());
          }
        }
      }
      for (Waiter w : release) {
        w.ready(first);
      }
    }

    @Override
    public void won(TransportRace race, Connection c, ConnectionInfo info) {
      List<Waiter> serve;
      boolean closeAfter;
      synchronized (ConnectionManager.this) {
        if (connecting != race) {
          closeAfter = true;
          serve = List.of();
        } else {
          connecting = null;
          early = null;
          ready = c;
          backoff.reset();
          lastFailure = null;
          setState(ConnectivityState.READY);
          serve = new ArrayList<>(waiters.keySet());
          waiters.clear();
          closeAfter = shutdown;
          if (inUse.isEmpty()) {
            armIdleTimer(); // connected on request (getState(true)) with no call
          }
        }
      }
      for (Waiter w : serve) {
        w.ready(c);
      }
      if (closeAfter) {
        race.closeLosers(Status.UNAVAILABLE.withDescription("channel shut down"));
        c.transport.shutdown();
        return;
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
    public void lost(TransportRace race, Status failure) {
      List<Waiter> fail = new ArrayList<>();
      synchronized (ConnectionManager.this) {
        if (connecting != race) {
          return;
        }
        connecting = null;
        early = null;
        lastFailure = failure;
        for (Map.Entry<Waiter, Mode> e : new ArrayList<>(waiters.entrySet())) {
          if (shutdown || !e.getValue().waitForReady) {
            fail.add(e.getKey());
            waiters.remove(e.getKey());
          }
        }
        if (!shutdown) {
          setState(ConnectivityState.TRANSIENT_FAILURE);
          reconnect = scheduler.schedule(ConnectionManager.this::backoffOver, backoff.nextDelayNanos(),
              TimeUnit.NANOSECONDS);
        }
      }
      for (Waiter w : fail) {
        w.failed(failure);
      }
      maybeTerminated();
    }

    @Override
    public void winnerShutdown(TransportRace race, ClientTransport transport, Status status) {
      synchronized (ConnectionManager.this) {
        if (ready != null && ready.transport == transport) {
          ready = null;
          draining.add(transport);
          setState(ConnectivityState.IDLE);
        }
      }
    }

    @Override
    public boolean closing() {
      synchronized (ConnectionManager.this) {
        return shutdown;
      }
    }

    @Override
    public void terminated(ClientTransport transport) {
      live.remove(transport);
      draining.remove(transport);
      maybeTerminated();
    }
  }

  private void backoffOver() {
    TransportRace next;
    synchronized (this) {
      reconnect = null;
      next = afterBackoff();
    }
    if (next != null) {
      next.start();
    }
  }
}
