package dev.tern.rpc;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.ConnectivityState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One backend's connection (the transport behind a load balancer's subchannel): connects when asked
 * (a {@link TransportRace} between the candidate transports over the backend's addresses), queues
 * calls until the race has a winner, fails them with a status that says why when every candidate
 * failed, and, as grpc-java's subchannels do, reconnects with backoff after a failure. Its state
 * changes go to {@link StateListener}: the channel's load balancer decides from them where calls go.
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

  /** Hears the connection's state; called with the manager's lock held, so it must only enqueue. */
  interface StateListener {
    /** The state changed to {@code state}; {@code failure} is the reason when it is TRANSIENT_FAILURE. */
    void stateChanged(ConnectivityState state, Status failure);

    /** The race under way lets calls allowed early data go on its first candidate now. */
    void earlyDataPossible();
  }

  private static final StateListener NO_LISTENER = new StateListener() {
    @Override public void stateChanged(ConnectivityState state, Status failure) {}

    @Override public void earlyDataPossible() {}
  };

  private final ChannelConfig cfg;
  private final ScheduledExecutorService scheduler;
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
  private final StateListener listener;
  /** The backend's addresses, replaced by the load balancer's {@link #updateAddresses}. */
  private volatile java.util.function.Supplier<List<SocketAddress>> addresses;
  private final Set<ClientTransport> live = ConcurrentHashMap.newKeySet();
  /** Transports that carried calls and then shut down (a GOAWAY): their calls still run. */
  private final Set<ClientTransport> draining = ConcurrentHashMap.newKeySet();
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

  /**
   * @param addresses the backend's addresses, in the order tried (blocking: called on the offload executor)
   * @param listener hears every state change; null for none
   * @param onTerminated runs once, when the manager is shut down and every transport has terminated
   */
  ConnectionManager(ChannelConfig cfg, java.util.function.Supplier<List<SocketAddress>> addresses,
      ScheduledExecutorService scheduler, StateListener listener,
      Runnable onTerminated) {
    this.cfg = cfg;
    this.addresses = addresses;
    this.scheduler = scheduler;
    this.listener = listener != null ? listener : NO_LISTENER;
    this.onTerminated = onTerminated;
    this.backoff = new Backoff(cfg.initialBackoffNanos, cfg.maxBackoffNanos);
  }

  /**
   * The load balancer gave the backend new addresses: the next connect uses them, and a connection
   * to an address no longer listed is left, as grpc-java's subchannels leave it (its calls finish;
   * the next call connects to the new list).
   */
  void updateAddresses(java.util.function.Supplier<List<SocketAddress>> next, List<SocketAddress> listed) {
    this.addresses = next;
    ClientTransport leave = null;
    synchronized (this) {
      if (shutdown || ready == null || listed == null) {
        return;
      }
      java.net.SocketAddress at = ready.info().remoteAddress();
      if (at != null && !listed.contains(at)) {
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
   * Leaves the ready connection if its transport is one {@code which} accepts (a call policy's
   * circuit breaker opened on it, or let a more preferred transport back in): as {@link
   * #updateAddresses} leaves one, its calls finish and the next call connects anew.
   */
  void leaveIf(java.util.function.Predicate<String> which) {
    ClientTransport leave;
    synchronized (this) {
      if (shutdown || ready == null || !which.test(ready.provider.name())) {
        return;
      }
      leave = leaveReady();
    }
    log.log(Level.FINE, "channel to {0}: leaving {1} at its call policies' request; reconnecting",
        new Object[] {cfg.authority, leave});
    leave.shutdown();
  }

  /**
   * The device's network changed: the ready connection moves to the new network if its transport
   * can move it ({@link ClientTransport#networkChanged}); otherwise it is left as {@link #leaveIf}
   * leaves one, and the next call connects over the new network.
   */
  void networkChanged() {
    ClientTransport ready;
    synchronized (this) {
      if (shutdown || this.ready == null) {
        return;
      }
      ready = this.ready.transport;
    }
    if (ready.networkChanged()) {
      log.log(Level.FINE, "channel to {0}: the network changed; {1} moves its connection",
          new Object[] {cfg.authority, ready});
      return;
    }
    synchronized (this) {
      if (shutdown || this.ready == null || this.ready.transport != ready) {
        return; // left or lost meanwhile
      }
      leaveReady();
    }
    log.log(Level.FINE, "channel to {0}: the network changed; leaving {1}; reconnecting",
        new Object[] {cfg.authority, ready});
    ready.shutdown();
  }

  /** Drains the ready connection and goes idle; the caller shuts the returned transport down. */
  private ClientTransport leaveReady() {
    ClientTransport leave = ready.transport;
    draining.add(leave);
    ready = null;
    setState(ConnectivityState.IDLE);
    return leave;
  }

  /**
   * Hands {@code waiter} a ready transport now or once connected. A call allowed early data gets
   * the transport as soon as it has started connecting, so a transport with 0-RTT can send it in
   * its first flight; the others wait until the handshake is done. A wait-for-ready call waits for
   * the handshake even when allowed early data: a stream opened on a connection that then fails
   * would fail the call, where wait-for-ready promises to wait through connection failures.
   */
  boolean obtain(Waiter waiter, boolean waitForReady, boolean earlyData) {
    Connection c = null;
    Status fail = null;
    TransportRace start = null;
    synchronized (this) {
      if (shutdown) {
        return false;
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
    return true;
  }

  /** A call ended (whether or not a transport was ready for it): forgets it. */
  synchronized void cancelWait(Waiter waiter) {
    waiters.remove(waiter);
  }

  /**
   * The first candidate of the race under way when calls allowed early data may go on it now (see
   * {@link #obtain}), else null.
   */
  synchronized Connection earlyConnection() {
    return !shutdown && ready == null && connecting != null ? early : null;
  }

  synchronized ConnectivityState state(boolean requestConnection) {
    if (requestConnection && state == ConnectivityState.IDLE && !shutdown) {
      TransportRace a = beginConnect();
      scheduler.execute(a::start);
    }
    return state;
  }

  /** The ready connection, or null. */
  synchronized Connection current() {
    return ready;
  }

  private TransportRace beginConnect() {
    TransportRace a = new TransportRace(cfg, addresses, scheduler, outcome);
    connecting = a;
    setState(ConnectivityState.CONNECTING);
    return a;
  }

  private void setState(ConnectivityState s) {
    if (state == s && s != ConnectivityState.TRANSIENT_FAILURE || state == ConnectivityState.SHUTDOWN) {
      return;
    }
    state = s;
    listener.stateChanged(s, s == ConnectivityState.TRANSIENT_FAILURE ? lastFailure : null);
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

  /** As grpc-java's subchannels: once the backoff is over, the next connect starts by itself. */
  private TransportRace afterBackoff() {
    if (shutdown) {
      return null;
    }
    return beginConnect();
  }

  void shutdown() {
    List<ClientTransport> close = new ArrayList<>();
    List<ClientTransport> closeNow = new ArrayList<>();
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
    // The waiters are those that went straight to this backend (health checks, early data).
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
        listener.earlyDataPossible();
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
          serve = Collections.emptyList();
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
      cfg.transportFilters.ready(c.transport, info, cfg.securityLevel);
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
          failedAttempt();
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
          if (transport.confirmed() || shutdown) {
            backoff.reset();
            setState(ConnectivityState.IDLE);
          } else {
            // Ready on what an earlier connection taught, then closed by the server before it
            // spoke (a server refusing connections after their handshake): a failed attempt, not
            // a connection lost. Reconnecting at once would loop as fast as the server refuses;
            // wait as after any failed attempt (the initial backoff: it was reset when ready).
            lastFailure = status;
            failedAttempt();
          }
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
      cfg.transportFilters.terminated(transport);
      maybeTerminated();
    }
  }

  /** After a failed connection attempt: TRANSIENT_FAILURE, and the next connect once the backoff is over. */
  private void failedAttempt() {
    setState(ConnectivityState.TRANSIENT_FAILURE);
    reconnect = scheduler.schedule(this::backoffOver, backoff.nextDelayNanos(), TimeUnit.NANOSECONDS);
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
