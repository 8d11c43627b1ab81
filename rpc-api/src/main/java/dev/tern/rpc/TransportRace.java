package dev.tern.rpc;

import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One connect of a channel: races the candidate transports and reports the first that becomes
 * ready, or that all failed.
 *
 * <p>The first candidate starts at once; each next one starts after the head start, or at once
 * when every started one has failed (the staggered attempts of Happy Eyeballs, RFC 8305 §5, with
 * transports in place of address families). When the first candidate is the transport that last
 * worked for the authority, it gets a longer head start: the next one starts only if it fails, or
 * if it is not ready within twice the time it took to connect last time (and never sooner than the
 * head start), so a datagram transport that worked yesterday but is blocked today costs about one
 * of its handshakes, not the handshake timeout (Chromium likewise delays its TCP job behind a QUIC
 * job known to work by a multiple of the remembered round-trip time). Losers still connecting when a
 * winner is ready keep going until they are ready (then they are shut down) or fail (then a loser
 * preferred over the winner is marked broken), as Chromium does with the QUIC job that lost to
 * TCP; each is bounded by the handshake timeout, and {@link #closeLosers} ends them early.
 */
final class TransportRace {
  private static final Logger log = Logger.getLogger(TransportRace.class.getName());

  /** What the race reports to its channel; called outside the race's lock. */
  interface Outcome {
    /** A transport was made; it counts as live until {@link #terminated}. */
    void created(ClientTransport transport);

    /** The first candidate started: calls allowed early data may go on {@code first} now. */
    void started(TransportRace race, Connection first);

    /** {@code winner} is ready and carries the calls from now on. */
    void won(TransportRace race, Connection winner, ConnectionInfo info);

    /** Every candidate failed; {@code status} names each and why. */
    void lost(TransportRace race, Status status);

    /** The winner, after being ready, stopped taking streams. */
    void winnerShutdown(TransportRace race, ClientTransport transport, Status status);

    /** {@code transport} released everything. */
    void terminated(ClientTransport transport);

    /** Whether the channel is shutting down: a loser failing now was closed, not broken. */
    boolean closing();
  }

  private final ChannelConfig cfg;
  /** The backend's addresses (blocking: runs on the offload executor). */
  private final java.util.function.Supplier<List<SocketAddress>> resolve;
  private final ScheduledExecutorService scheduler;
  private final Outcome outcome;
  private final List<TransportProvider> candidates;
  /** The candidates their server advertised ({@code alt-svc}), by name: where and how to reach them. */
  private final Map<String, TransportSelector.Route> routes = new HashMap<>();
  private final List<Leg> legs = new ArrayList<>();
  private boolean straight;
  /** Whether the first candidate was put first as the transport that worked last time. */
  private final boolean rememberedFirst;
  /**
   * Whether calls allowed early data may be handed to the first candidate before any candidate is
   * ready: only when there is no race to lose (one candidate) or the first is the transport that
   * worked for this authority before, the only case where it can hold a resumption ticket, and it
   * {@linkplain TransportProvider#supportsEarlyData() can send 0-RTT}. On a first contact an early
   * call would otherwise sit on a datagram transport that may be black-holed while TCP wins, and
   * stay there until that transport's handshake timeout; on a transport without 0-RTT it would
   * gain nothing and could be stranded the same way.
   */
  private final boolean firstMayCarryEarlyData;
  /** How long the next candidate waits for the first: the head start, or longer when straight. */
  private final long firstHeadStartNanos;
  /** The resolved addresses, in the order they are tried. */
  private volatile List<SocketAddress> addresses;
  /** Every (transport, address) to try, in order; set once the addresses are resolved. */
  private List<Candidate> plan = Collections.emptyList();
  private int next;
  private Leg winner;
  private boolean abandoned;
  private boolean reported;
  private ScheduledFuture<?> headStartTimer;
  private Connection first;
  /** Why the race cannot even start (no usable transport, an unresolvable address), or null. */
  private volatile RuntimeException failure;

  TransportRace(ChannelConfig cfg, java.util.function.Supplier<List<SocketAddress>> resolve,
      ScheduledExecutorService scheduler, Outcome outcome) {
    this.cfg = cfg;
    this.resolve = resolve;
    this.scheduler = scheduler;
    this.outcome = outcome;
    List<TransportProvider> c;
    try {
      c = cfg.selector.candidates(cfg.authority, cfg.memory, cfg::transportAllowed);
    } catch (RuntimeException e) {
      c = Collections.emptyList();
      failure = e;
    }
    this.candidates = c;
    for (TransportProvider p : c) {
      TransportSelector.Route r = cfg.selector.advertisedRoute(p, cfg.authority, cfg.memory);
      if (r != null) {
        routes.put(p.name(), r);
      }
    }
    this.straight = c.size() > 1 && c.get(0).name().equals(cfg.memory.lastWorked(cfg.authority));
    this.rememberedFirst = straight;
    this.firstMayCarryEarlyData = c.size() <= 1 || straight && c.get(0).supportsEarlyData();
    this.firstHeadStartNanos = straight
        ? Math.max(cfg.raceHeadStartNanos, 2 * cfg.memory.lastConnectNanos(cfg.authority))
        : cfg.raceHeadStartNanos;
  }

  /** Whether calls allowed early data may go on the first candidate before it is ready. */
  boolean firstMayCarryEarlyData() {
    return firstMayCarryEarlyData;
  }

  /** How long the second candidate waits for the first (package-private for tests). */
  long firstHeadStartNanos() {
    return firstHeadStartNanos;
  }

  /**
   * Resolves the address and starts the first candidate. Resolving may block (a DNS lookup inside
   * {@code new InetSocketAddress}), so it runs on the channel's offload executor, never on the
   * caller's thread or the timer that fires deadlines; this method returns at once.
   */
  void start() {
    if (failure != null) {
      reportUnstartable();
      return;
    }
    try {
      cfg.offloadExecutor.execute(this::resolveAndStart);
    } catch (RejectedExecutionException e) {
      failure = new IllegalStateException("the channel's offload executor refused the address resolution", e);
      reportUnstartable();
    }
  }

  /**
   * One attempt of the race: a transport to one of the resolved addresses (on the port its server
   * advertised for it, if it did), with its options.
   */
  private record Candidate(TransportProvider provider, SocketAddress target, SocketAddress address,
      TransportOptions options) {}

  private void resolveAndStart() {
    List<SocketAddress> resolved;
    try {
      resolved = resolve.get();
      if (resolved == null || resolved.isEmpty()) {
        throw new IllegalStateException(cfg.authority + " resolved to no address");
      }
    } catch (RuntimeException e) {
      failure = e;
      reportUnstartable();
      return;
    }
    // Every resolved address is used: each transport to the first address (the transports'
    // race), then to the next, with the head start between attempts (Happy Eyeballs, RFC 8305 §5,
    // which also staggers attempts across addresses), so a host whose first address is dead
    // still connects.
    List<Candidate> p = new ArrayList<>(resolved.size() * candidates.size());
    for (SocketAddress a : resolved) {
      for (TransportProvider t : candidates) {
        TransportSelector.Route r = routes.get(t.name());
        if (r == null) {
          p.add(new Candidate(t, a, a, cfg.options));
        } else {
          SocketAddress at = a instanceof InetSocketAddress isa && !isa.isUnresolved() && isa.getPort() != r.port()
              ? new InetSocketAddress(isa.getAddress(), r.port()) : a;
          p.add(new Candidate(t, a, at, r.options()));
        }
      }
    }
    synchronized (this) {
      addresses = Collections.unmodifiableList(new ArrayList<>(resolved));
      plan = p;
    }
    startNext();
  }

  private void reportUnstartable() {
    Status s = failure instanceof StatusRuntimeException
        ? ((StatusRuntimeException) failure).getStatus()
        : Status.UNAVAILABLE.withDescription(failure.getMessage()).withCause(failure);
    report(Status.UNAVAILABLE.withDescription("connecting to " + cfg.authority + " failed: "
        + describe(s)).withCause(failure));
  }

  /** Starts no further candidate: the channel no longer wants this race. */
  synchronized void abandon() {
    abandoned = true;
    if (headStartTimer != null) {
      headStartTimer.cancel(false);
    }
  }

  /** Abandons the race and closes every candidate but the winner, with {@code status}. */
  void closeLosers(Status status) {
    List<ClientTransport> close = new ArrayList<>();
    synchronized (this) {
      abandon();
      for (Leg l : legs) {
        if (l != winner && l.transport != null && !l.done) {
          close.add(l.transport);
        }
      }
    }
    close.forEach(t -> t.shutdownNow(status));
  }

  /** Starts the next candidate if there is one and no winner yet; false if none was started. */
  private boolean startNext() {
    Leg leg;
    synchronized (this) {
      if (winner != null || abandoned || next >= plan.size()) {
        return false;
      }
      if (headStartTimer != null) {
        headStartTimer.cancel(false);
        headStartTimer = null;
      }
      Candidate c = plan.get(next);
      leg = new Leg(next, c.provider(), c.target(), c.address(), c.options());
      next++;
      legs.add(leg);
      if (next < plan.size()) {
        long wait = next == 1 ? firstHeadStartNanos : cfg.raceHeadStartNanos;
        headStartTimer = scheduler.schedule(this::startNext, wait, TimeUnit.NANOSECONDS);
      }
    }
    leg.start();
    return true;
  }

  /** A leg failed before it was ready: mark it, start the next one, or report the loss. */
  private void legFailed(Leg leg) {
    boolean mark;
    boolean allFailed;
    synchronized (this) {
      straight = false;
      // A transport preferred over the winner failed at the winner's own address: broken here.
      mark = winner != null && !abandoned && leg.index < winner.index && leg.target.equals(winner.target);
      allFailed = winner == null && next >= plan.size() && legs.stream().allMatch(l -> l.failure != null);
    }
    if (mark) {
      if (!outcome.closing()) {
        cfg.memory.markBroken(cfg.authority, leg.provider.name());
      }
      return;
    }
    if (!startNext() && allFailed) {
      report(lossStatus());
    }
  }

  /**
   * Why {@code won} carries the channel's calls: how the race went (who failed and why, who was
   * still connecting or never started) and which transports were left out of it and why, for
   * {@link TernChannels#selectionReason}. Under the race's lock.
   */
  private String selection(Leg won, long readyNanos) {
    StringBuilder b = new StringBuilder(won.provider.name());
    boolean oneAddress = addresses == null || addresses.size() == 1;
    if (plan.size() == 1) {
      b.append(cfg.selector.usable().size() > 1 ? ": the one transport left to try"
          : cfg.selector.explicit() ? ": the one transport the channel names"
          : ": the one transport on the class path");
    } else {
      b.append(": ready first, ").append(TimeUnit.NANOSECONDS.toMillis(readyNanos)).append(" ms after it started");
      if (rememberedFirst && won.index == 0) {
        b.append(", tried first as the transport that worked last time");
      }
      if (won.address != won.target && won.address instanceof InetSocketAddress at) {
        b.append(", on port ").append(at.getPort()).append(" as the server advertised (alt-svc)");
      }
      for (Leg l : legs) {
        if (l == won) {
          continue;
        }
        b.append("; ").append(l.provider.name());
        if (!oneAddress) {
          b.append(" to ").append(l.address);
        }
        b.append(l.failure != null ? " failed (" + describe(l.failure) + ")" : " was still connecting");
      }
      for (int i = next; i < plan.size(); i++) {
        b.append("; ").append(plan.get(i).provider().name());
        if (!oneAddress) {
          b.append(" to ").append(plan.get(i).address());
        }
        b.append(" not started");
      }
    }
    for (TransportProvider p : cfg.selector.usable()) {
      if (candidates.contains(p)) {
        continue;
      }
      b.append("; ").append(p.name()).append(" left out: ");
      if (cfg.memory.isBroken(cfg.authority, p.name())) {
        b.append("marked broken for ").append(cfg.authority).append(" after an earlier failure");
      } else if (!cfg.transportAllowed(p.name())) {
        b.append("refused by the channel's call policies");
      } else {
        b.append("a channel races one datagram and one stream transport by default");
      }
    }
    return b.toString();
  }

  private synchronized Status lossStatus() {
    if (legs.size() == 1) {
      Leg l = legs.get(0);
      Status s = l.failure;
      return (s.getCode() == Status.Code.FAILED_PRECONDITION ? s : Status.UNAVAILABLE)
          .withDescription("connecting to " + cfg.authority + " over " + l.provider.name() + " failed: "
              + describe(s)).withCause(s.getCause());
    }
    StringBuilder why = new StringBuilder();
    boolean allPrecondition = true;
    boolean severalAddresses = addresses != null && addresses.size() > 1;
    for (Leg l : legs) {
      why.append(why.length() == 0 ? "" : "; ").append(l.provider.name());
      if (severalAddresses) {
        why.append(" to ").append(l.address);
      }
      why.append(": ").append(describe(l.failure));
      allPrecondition &= l.failure.getCode() == Status.Code.FAILED_PRECONDITION;
    }
    return (allPrecondition ? Status.FAILED_PRECONDITION : Status.UNAVAILABLE)
        .withDescription("connecting to " + cfg.authority + " failed over every transport (" + why + ")")
        .withCause(legs.get(0).failure.getCause());
  }

  private void report(Status status) {
    synchronized (this) {
      if (reported || abandoned) {
        return;
      }
      reported = true;
    }
    outcome.lost(this, status);
  }

  /**
   * The code, description and, when the description does not already say it, the root cause: the
   * summary status keeps one cause object, so every other attempt's cause must live in its text.
   */
  static String describe(Status s) {
    String d = s.getDescription();
    String out = s.getCode() + (d == null ? "" : ": " + d);
    Throwable root = s.getCause();
    while (root != null && root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != null) {
      String why = root.getMessage() == null ? root.getClass().getSimpleName()
          : root.getClass().getSimpleName() + ": " + root.getMessage();
      if (d == null || !d.contains(root.getMessage() == null ? why : root.getMessage())) {
        out += " (" + why + ")";
      }
    }
    return out;
  }

  /** One candidate's transport and its listener. */
  private final class Leg implements ClientTransport.Listener {
    final int index;
    final TransportProvider provider;
    /** The resolved address this attempt is for (broken marks compare these). */
    final SocketAddress target;
    /** Where it connects: {@link #target}, or on the port the server advertised. */
    final SocketAddress address;
    final TransportOptions options;
    final TransportMetrics metrics;
    ClientTransport transport;
    ScheduledFuture<?> timeout;
    long startNanos;
    boolean ready;
    boolean done;
    Status failure;

    Leg(int index, TransportProvider provider, SocketAddress target, SocketAddress address,
        TransportOptions options) {
      this.index = index;
      this.provider = provider;
      this.target = target;
      this.address = address;
      this.options = options;
      this.metrics = cfg.metrics(provider.name());
    }

    void start() {
      startNanos = System.nanoTime();
      RuntimeException cannotCreate = null;
      // Created and registered with the channel under the race's lock: a shutdownNow() abandons
      // the race under that lock before it sweeps the channel's live transports, so a transport
      // either exists in time to be swept or is never created.
      synchronized (TransportRace.this) {
        if (abandoned) {
          return;
        }
        try {
          transport = provider.newClientTransport(address, cfg.authority,
              options.with(TransportOptions.EVENTS, metrics));
          metrics.handshakeStarted();
          outcome.created(transport);
        } catch (RuntimeException e) {
          cannotCreate = e;
        }
      }
      if (cannotCreate != null) {
        failed(Status.UNAVAILABLE.withDescription("cannot create a transport: " + cannotCreate.getMessage())
            .withCause(cannotCreate));
        return;
      }
      try {
        timeout = scheduler.schedule(this::timedOut, cfg.handshakeTimeoutNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        // The channel's timer is gone: the channel shut down after this transport was created.
        transport.shutdownNow(Status.UNAVAILABLE.withDescription("channel shut down while connecting"));
        return;
      }
      try {
        transport.start(this);
      } catch (RuntimeException e) {
        log.log(Level.WARNING, "transport start threw", e);
        transport.shutdownNow(Status.UNAVAILABLE.withCause(e));
        failed(Status.UNAVAILABLE.withDescription("transport failed to start: " + e).withCause(e));
        return;
      }
      // The channel may have abandoned the race (shutdownNow) between startNext's check and here:
      // its sweep of live transports ran before this one existed, so close it now rather than at
      // the handshake timeout.
      boolean unwanted;
      synchronized (TransportRace.this) {
        unwanted = abandoned;
      }
      if (unwanted) {
        transport.shutdownNow(Status.UNAVAILABLE.withDescription("channel shut down while connecting"));
        return;
      }
      if (index == 0) {
        Connection c = new Connection(transport, provider, metrics, cfg);
        boolean open;
        synchronized (TransportRace.this) {
          first = c;
          open = !done;
        }
        if (open) {
          outcome.started(TransportRace.this, c);
        }
      }
    }

    private void timedOut() {
      boolean pending;
      synchronized (TransportRace.this) {
        pending = !ready && !done;
      }
      if (pending) {
        transport.shutdownNow(Status.UNAVAILABLE.withDescription("handshake with " + address + " over "
            + provider.name() + " did not complete within "
            + TimeUnit.NANOSECONDS.toMillis(cfg.handshakeTimeoutNanos) + " ms"));
      }
    }

    @Override
    public void transportReady(ConnectionInfo info) {
      Connection c;
      boolean win;
      List<Leg> preferredFailed = new ArrayList<>();
      List<String> beat = new ArrayList<>();
      synchronized (TransportRace.this) {
        if (done) {
          return;
        }
        ready = true;
        metrics.handshakeSucceeded();
        if (timeout != null) {
          timeout.cancel(false);
        }
        win = winner == null && !abandoned;
        if (win) {
          winner = this;
          if (headStartTimer != null) {
            headStartTimer.cancel(false);
          }
          for (Leg l : legs) {
            if (l.index < index && l.failure != null && l.target.equals(target)) {
              preferredFailed.add(l);
            } else if (l.index < index && l.failure == null) {
              beat.add(l.provider.name());
            }
          }
        }
        c = index == 0 && first != null ? first : new Connection(transport, provider, metrics, cfg);
        if (win) {
          c.selection = selection(this, System.nanoTime() - startNanos);
        }
      }
      if (win) {
        if (log.isLoggable(Level.FINE)) {
          log.log(Level.FINE, "connect to {0}: {1} won, ready after {2} ms", new Object[] {cfg.authority,
              provider.name(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos)});
        }
        cfg.memory.markWon(cfg.authority, provider.name(), System.nanoTime() - startNanos, beat);
        for (Leg l : preferredFailed) {
          cfg.memory.markBroken(cfg.authority, l.provider.name());
        }
        outcome.won(TransportRace.this, c, info);
      } else {
        transport.shutdown();
      }
    }

    @Override
    public void transportShutdown(Status status) {
      boolean wasWinner;
      synchronized (TransportRace.this) {
        if (timeout != null) {
          timeout.cancel(false);
        }
        if (done) {
          return;
        }
        done = true;
        wasWinner = ready && winner == this;
      }
      if (wasWinner) {
        outcome.winnerShutdown(TransportRace.this, transport, status);
      } else if (!ready) {
        failed(status);
      }
    }

    /** Records why this leg failed (the first reason only) and moves the race on. */
    private void failed(Status status) {
      synchronized (TransportRace.this) {
        done = true;
        if (failure != null) {
          return;
        }
        failure = status;
      }
      if (log.isLoggable(Level.FINE)) {
        log.log(Level.FINE, "connect to {0}: {1} failed after {2} ms: {3}", new Object[] {cfg.authority,
            provider.name(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), describe(status)});
      }
      legFailed(this);
    }

    @Override
    public void transportTerminated() {
      boolean opened;
      synchronized (TransportRace.this) {
        opened = ready;
      }
      if (opened) {
        metrics.connectionClosed();
      } else {
        metrics.handshakeFailed();
      }
      outcome.terminated(transport);
    }
  }
}
