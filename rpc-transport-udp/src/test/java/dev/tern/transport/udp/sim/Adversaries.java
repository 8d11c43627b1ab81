package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.connection.Mutants;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.util.Saturating;
import java.util.List;
import java.util.Random;

/**
 * The adversarial profiles of the campaign (docs/udp-simulator.md, "Adversaries"). Each runs its
 * attack over a link chosen from the seed ({@link #BASES}) and adds its own verdict to the run's:
 *
 * <ul>
 *   <li>{@code adv-spoofer}: an off-path attacker forges a datagram every 5 ms from an address
 *       of its own (garbage, INITIALs that do not open, short headers with guessed connection
 *       IDs, unknown versions), and some towards the client. It must leave no state (the server
 *       never holds more than the one real connection) and cost no delivery.
 *   <li>{@code adv-replayer}: an on-path attacker delays 10% of the datagrams by up to 20 ms (out
 *       of order) and replays a copy of 10% up to 500 ms later, half of the copies to the server
 *       from forged addresses. Same verdict as the spoofer.
 *   <li>{@code adv-optimistic-acker}: the client acknowledges every packet number up to the
 *       largest received, gaps included (a feed, so the server sends enough packets to skip
 *       some); the server must close the connection with PROTOCOL_VIOLATION (RFC 9000 §21.4).
 *   <li>{@code adv-nat-rebinding}: the client's address changes every 0.5-1.5 s (drawn from the
 *       seed) while its calls
 *       run; no call may be lost. The client keeps its connection up between calls (keep-alive
 *       without calls), as a channel that expects more calls does.
 *   <li>{@code adv-moving-client}: half-way through a feed the client moves to a second network
 *       with another RTT ({@link #MOVES}); no call may be lost, and the RTT estimates must come
 *       from the new network (RFC 9000 §9.4).
 *   <li>{@code adv-server-restart}: after the client's calls the server restarts (its
 *       connections gone, the same static key); the client, which keeps its connection for later
 *       calls, must learn that it is gone (its connection must end, not hang), the old
 *       connection's datagrams must leave the restarted server without state, and a new
 *       connection to the restarted server must carry the next calls (the same scenario again,
 *       checked and timed like any run).
 * </ul>
 */
final class Adversaries {
  /** The adversarial profiles, in the order a campaign cycles through them. */
  static final List<String> NAMES = List.of("adv-spoofer", "adv-replayer",
      "adv-optimistic-acker", "adv-nat-rebinding", "adv-moving-client", "adv-server-restart");
  /** The links the attacks run over, one per seed in turn. */
  static final List<String> BASES = List.of("wifi", "mobile", "crowded", "lte-tmobile",
      "harsh-mix");
  /** The moving client's networks: from the first of a pair to the second. */
  static final String[][] MOVES = {{"wifi", "mobile"}, {"mobile", "wifi"},
      {"lte-tmobile", "wifi"}, {"wifi", "crowded"}};
  /**
   * How often, on average, the NAT of {@code adv-nat-rebinding} gives the client a new address:
   * 1 s, or {@code -Dtern.adv.rebindPeriodMs} (500 for the 250-750 ms variant in
   * docs/udp-simulator.md).
   */
  static final long REBIND_PERIOD_NS = Long.getLong("tern.adv.rebindPeriodMs", 1_000L) * 1_000_000L;
  private static final long SPOOF_INTERVAL_NS = 5_000_000L;
  private static final long ATTACKER_SEED = 0xADE5_A41EL;

  private Adversaries() {}

  /** Runs adversarial profile {@code name} with {@code seed}. */
  static RunResult run(String name, Scenario scenario, long seed, ConnectionConfig config) {
    String base = BASES.get((int) Math.floorMod(seed, (long) BASES.size()));
    Random calls = new Random(seed);
    switch (name) {
      case "adv-spoofer":
      case "adv-replayer":
        return stateless(name, base, scenario, seed, config);
      case "adv-optimistic-acker":
        return optimistic(base, seed, config);
      case "adv-nat-rebinding": {
        SimRun.Setup setup = new SimRun.Setup(SimProfiles.get(base), seed, config, config,
            scenario.calls(calls));
        // The first change at a phase drawn from the seed: a period in step with the handshake's
        // probe timeouts (999 ms x 2^n - 1) would rebind 1 ms after each probe, every answer
        // going to the address just left, which no protocol survives.
        // Nor may the intervals keep step with the client's own timers (its waiting PINGs after
        // 1, 2, 4... probe timeouts): each is drawn between half a period and one and a half.
        Random nat = new Random(seed ^ ATTACKER_SEED);
        long phase = Math.floorMod(nat.nextLong(), REBIND_PERIOD_NS);
        setup.sim.rebindEvery(REBIND_PERIOD_NS / 2 + phase, REBIND_PERIOD_NS, nat);
        // A client that keeps its connection (keep-alive without calls): after a rebinding that
        // came as its calls ended, its keep-alive shows the server the new address, so the
        // server's last packets are acknowledged and the connection ends empty.
        setup.sim.client().setKeepConnected(true);
        RunResult r = SimRun.run(setup, name, scenario, setup.calls);
        int rebinds = setup.sim.rebinds;
        r.pathChangeAllowanceNs = pathChangeAllowance(r, rebinds);
        r.adversary = String.format("base=%s firstRebind=%.0fms rebinds=%d followed=%d", base,
            (REBIND_PERIOD_NS / 2 + phase) / 1e6, rebinds, r.clientPathChanges);
        return r;
      }
      case "adv-moving-client":
        return moving(seed, config);
      case "adv-server-restart":
        return restart(base, scenario, seed, config);
      default:
        throw new IllegalArgumentException("no adversary " + name);
    }
  }

  /**
   * What {@code changes} path changes before completion may cost: after each, the server's
   * datagrams to the old address are lost until the client's next packet shows the new one, so
   * up to a probe timeout of the client (with its backoff, as after a loss only a timer can
   * reveal) and a round trip.
   */
  private static long pathChangeAllowance(RunResult r, int changes) {
    if (changes == 0) {
      return 0;
    }
    long pto = Math.max(r.maxPtoNs, LinkChannel.INITIAL_PTO_NS);
    return Saturating.add(changes * (2 * pto + r.handshakeRoundTripNs), 1);
  }

  private static RunResult stateless(String name, String base, Scenario scenario, long seed,
      ConnectionConfig config) {
    SimRun.Setup setup = new SimRun.Setup(SimProfiles.get(base), seed, config, config,
        scenario.calls(new Random(seed)));
    Simulation sim = setup.sim;
    if (name.equals("adv-spoofer")) {
      sim.spoofEvery(SPOOF_INTERVAL_NS, seed ^ ATTACKER_SEED);
    } else {
      sim.replayAndReorder(0.10, 0.10, 20_000_000L, 500_000_000L, seed ^ ATTACKER_SEED);
    }
    RunResult r = SimRun.run(setup, name, scenario, setup.calls);
    if (r.ok() && sim.maxServerConnections > 1) {
      r.failure = "the attack made the server hold " + sim.maxServerConnections + " connections";
    }
    r.adversary = name.equals("adv-spoofer")
        ? String.format("base=%s spoofed=%d serverDropped=%d reflectedBytes=%d maxConnections=%d",
            base, sim.spoofed, sim.demux.dropped(), sim.reflectedBytes, sim.maxServerConnections)
        : String.format("base=%s replayed=%d reordered=%d maxConnections=%d", base, sim.replayed,
            sim.reordered, sim.maxServerConnections);
    return r;
  }

  private static RunResult restart(String base, Scenario scenario, long seed,
      ConnectionConfig config) {
    SimRun.Setup first = new SimRun.Setup(SimProfiles.get(base), seed, config, config,
        scenario.calls(new Random(seed)));
    Simulation sim = first.sim;
    sim.client().setKeepConnected(true); // a channel that expects more calls keeps it
    sim.stopOnFatal(false);
    String failure = null;
    if (!sim.runUntil(sim::allCallsDone, SimRun.CALL_LIMIT_NS)) {
      failure = "calls before the restart incomplete: " + sim.fatal();
    }
    long restartAt = sim.nowNs() + 100_000_000L;
    sim.runUntil(() -> false, restartAt);
    sim.restartServer();
    Connection old = sim.client();
    sim.runUntil(() -> old.state() == ConnectionState.CLOSED, restartAt + SimRun.QUIESCE_LIMIT_NS);
    long learnedNs = sim.nowNs() - restartAt;
    int stateLeft = sim.demux.connections().size();
    long strayDropped = sim.demux.dropped();
    // The next calls: a new connection to the restarted server, whose static key is the same
    // (a fresh simulation of the same seed: the server's key comes from it).
    List<Call> next = scenario.calls(new Random(seed));
    RunResult r = SimRun.run(new SimRun.Setup(SimProfiles.get(base), seed, config, config, next),
        "adv-server-restart", scenario, next);
    if (r.ok() && failure != null) {
      r.failure = failure;
    } else if (r.ok() && old.state() != ConnectionState.CLOSED) {
      r.failure = "the client did not learn that the restarted server lost its connection";
    } else if (r.ok() && stateLeft != 0) {
      r.failure = "the old connection's datagrams made the restarted server hold "
          + stateLeft + " connections";
    }
    r.adversary = String.format("base=%s learnedAfter=%.0fms closedBy=%s strayDropped=%d "
        + "restartedServerConnections=%d", base, learnedNs / 1e6, old.closeError(), strayDropped,
        stateLeft);
    return r;
  }

  private static RunResult optimistic(String base, long seed, ConnectionConfig config) {
    List<Call> calls = Scenario.FEED.calls(new Random(seed));
    SimRun.Setup setup = new SimRun.Setup(SimProfiles.get(base), seed,
        Mutants.with(config, Mutants.OPTIMISTIC_ACKS), config, calls);
    Simulation sim = setup.sim;
    sim.stopOnFatal(false);
    RunResult r = new RunResult();
    r.seed = seed;
    r.profile = "adv-optimistic-acker";
    r.scenario = Scenario.FEED;
    r.idealNs = new IdealTransfer(setup.profile, setup.upSeed, setup.downSeed).of(calls);
    r.slowStartFloorNs = r.idealNs;
    boolean closed = sim.runUntil(() -> sim.server() != null
        && sim.server().state() != ConnectionState.ESTABLISHED
        && sim.server().state() != ConnectionState.HANDSHAKING, SimRun.CALL_LIMIT_NS);
    Connection server = sim.server();
    TransportError e = server == null ? null : server.closeError();
    if (!closed || e != TransportError.PROTOCOL_VIOLATION) {
      r.failure = "the optimistic acknowledger was not closed: server "
          + (server == null ? "none" : server.state() + " " + e)
          + (sim.allCallsDone() ? ", every call completed" : "");
    } else {
      // Held to 3x the ideal like any run: the attacker must be caught before an honest client
      // could have had its whole feed three times over.
      r.completionNs = Math.max(sim.nowNs(), r.idealNs);
    }
    r.adversary = String.format("base=%s closedAt=%.1fms error=%s serverPackets=%d", base,
        sim.nowNs() / 1e6, e, server == null ? 0 : server.stats().packetsSent);
    return r;
  }

  private static RunResult moving(long seed, ConnectionConfig config) {
    Scenario scenario = Scenario.FEED; // one long response, so that the move is mid-call
    String[] move = MOVES[(int) Math.floorMod(seed, (long) MOVES.length)];
    LinkProfile from = SimProfiles.get(move[0]);
    LinkProfile to = SimProfiles.get(move[1]);
    List<Call> calls = scenario.calls(new Random(seed));
    SimRun.Setup setup = new SimRun.Setup(from, seed, config, config, calls);
    long idealFrom = new IdealTransfer(from, setup.upSeed, setup.downSeed).of(calls);
    long idealTo = new IdealTransfer(to, seed * 31 + 3, seed * 31 + 4).of(calls);
    // Mid-call: half-way through the first network's ideal, after its handshake.
    long moveAt = Math.max(idealFrom / 2, 2 * from.rttNs());
    setup.sim.client().setKeepConnected(true);
    setup.idealAtMostNs = idealTo;
    setup.sim.moveAt(moveAt, new LinkChannel(new Link(to.clientToServer(), seed * 31 + 3, 0)),
        new LinkChannel(new Link(to.serverToClient(), seed * 31 + 4, 0)));
    RunResult r = SimRun.run(setup, "adv-moving-client", scenario, calls);
    // Neither network's ideal is a bound for a run over both: the faster one's is the ideal (no
    // run beats it), the time bound allows the slower one's.
    boolean moved = r.completionNs < 0 || r.completionNs > moveAt;
    if (r.ok() && moved && idealTo > idealFrom) {
      r.pathChangeAllowanceNs = Saturating.add(pathChangeAllowance(r, 1),
          (long) (Campaign.TIME_BOUND_RATIO * (idealTo - idealFrom)));
    } else if (r.ok() && moved) {
      r.pathChangeAllowanceNs = pathChangeAllowance(r, 1);
    }
    Simulation sim = setup.sim;
    long clientSrtt = sim.client().rtt().smoothedRttNs();
    long serverSrtt = sim.server() == null ? -1 : sim.server().rtt().smoothedRttNs();
    r.adversary = String.format("from=%s(rtt %.0fms) to=%s(rtt %.0fms) movedAt=%.0fms moved=%s "
        + "followed=%d srttBefore=%.0fms srttAfter=client %.0fms server %.0fms", move[0],
        from.rttNs() / 1e6, move[1], to.rttNs() / 1e6, moveAt / 1e6, moved, r.clientPathChanges,
        sim.srttBeforeMoveNs / 1e6, clientSrtt / 1e6, serverSrtt / 1e6);
    return r;
  }
}
