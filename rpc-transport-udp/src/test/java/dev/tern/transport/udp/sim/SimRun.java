package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionStats;
import dev.tern.transport.udp.util.Saturating;
import java.util.List;
import java.util.Random;

/** Runs one seeded scenario over one link profile and checks its outcome. */
public final class SimRun {
  /** Virtual time allowed for all calls to complete. */
  public static final long CALL_LIMIT_NS = 600_000_000_000L;
  /** Extra virtual time allowed for both ends to become quiescent after the calls. */
  public static final long QUIESCE_LIMIT_NS = 120_000_000_000L;

  private SimRun() {}

  /**
   * Runs {@code scenario} on {@code profileName} with {@code seed}; an adversarial profile
   * ({@link Adversaries#NAMES}) runs its attack over a link chosen from the seed.
   */
  public static RunResult run(String profileName, Scenario scenario, long seed,
      ConnectionConfig config, long rebindAtNs) {
    if (Adversaries.NAMES.contains(profileName)) {
      return Adversaries.run(profileName, scenario, seed, config);
    }
    return run(profileName, scenario, scenario.calls(new Random(seed)), seed, config,
        rebindAtNs);
  }

  /** Runs the given calls on {@code profileName} with {@code seed}. */
  public static RunResult runCalls(String profileName, List<Call> calls, long seed,
      ConnectionConfig config) {
    return run(profileName, Scenario.MIXED, calls, seed, config, -1);
  }

  private static RunResult run(String profileName, Scenario scenario, List<Call> calls,
      long seed, ConnectionConfig config, long rebindAtNs) {
    Setup setup = new Setup(SimProfiles.get(profileName), seed, config, config, calls);
    if (rebindAtNs >= 0) {
      setup.sim.rebindAt(rebindAtNs);
    }
    return run(setup, profileName, scenario, calls);
  }

  /** A run's links and simulation, before it runs: an adversary adds itself here. */
  static final class Setup {
    final LinkProfile profile;
    final long seed;
    final long upSeed;
    final long downSeed;
    final LinkChannel up;
    final LinkChannel down;
    final ConnectionConfig clientConfig;
    final ConnectionConfig serverConfig;
    List<Call> calls;
    Simulation sim;
    /** A lower ideal than the link's own (a run over two networks), or Long.MAX_VALUE. */
    long idealAtMostNs = Long.MAX_VALUE;

    Setup(LinkProfile profile, long seed, ConnectionConfig clientConfig,
        ConnectionConfig serverConfig, List<Call> calls) {
      this.profile = profile;
      this.seed = seed;
      this.upSeed = seed * 31 + 1;
      this.downSeed = seed * 31 + 2;
      this.up = new LinkChannel(new Link(profile.clientToServer(), upSeed, 0));
      this.down = new LinkChannel(new Link(profile.serverToClient(), downSeed, 0));
      this.clientConfig = clientConfig;
      this.serverConfig = serverConfig;
      if (calls != null) {
        simulate(calls);
      }
    }

    void simulate(List<Call> calls) {
      this.calls = calls;
      this.sim = new Simulation(seed, up, down, clientConfig, serverConfig, calls);
    }
  }

  /** Runs a prepared setup (its simulation built) and checks the outcome. */
  static RunResult run(Setup setup, String profileName, Scenario scenario, List<Call> calls) {
    if (setup.sim == null) {
      setup.simulate(calls);
    }
    LinkProfile profile = setup.profile;
    long seed = setup.seed;
    long upSeed = setup.upSeed;
    long downSeed = setup.downSeed;
    LinkChannel up = setup.up;
    LinkChannel down = setup.down;
    Simulation sim = setup.sim;
    RunResult res = new RunResult();
    res.seed = seed;
    res.profile = profileName;
    res.scenario = scenario;
    IdealTransfer ideal = new IdealTransfer(profile, upSeed, downSeed);
    res.idealNs = Math.min(ideal.of(calls), setup.idealAtMostNs);
    res.slowStartFloorNs = new SlowStartFloor(profile, upSeed, downSeed).of(calls);
    res.feedbackOutageNs = ideal.longestFeedbackOutageNs(
        (long) (Campaign.TIME_BOUND_RATIO * res.idealNs));
    res.handshakeRoundTripNs = ideal.handshakeNs();
    boolean done = sim.runUntil(sim::allCallsDone, CALL_LIMIT_NS);
    res.callLatencyNs = new long[calls.size()];
    long last = -1;
    for (int i = 0; i < calls.size(); i++) {
      Call c = calls.get(i);
      res.callLatencyNs[i] = c.doneNs() < 0 ? -1 : c.doneNs() - c.startNs;
      last = Math.max(last, c.doneNs());
      res.responseBytes += c.responseBytesRead();
    }
    if (!done) {
      res.failure = sim.fatal() != null ? sim.fatal()
          : "calls incomplete at " + sim.nowNs() / 1e6 + " ms";
    } else {
      res.completionNs = last;
      if (last < res.idealNs) {
        // The ideal is a lower bound no schedule beats: being faster means a measurement bug.
        res.failure = "completion " + last / 1e6 + " ms below the ideal " + res.idealNs / 1e6
            + " ms: the ideal or the measurement is wrong";
      }
      boolean quiet = sim.runUntil(sim::quiescent, sim.nowNs() + QUIESCE_LIMIT_NS);
      if (sim.fatal() != null) {
        res.failure = sim.fatal();
      } else if (res.failure != null) {
        sim.closeAndDrain(sim.nowNs() + QUIESCE_LIMIT_NS); // keeps the below-ideal failure
      } else if (!quiet) {
        res.failure = "state left after completion: client streams=" + sim.client().streamCount()
            + " server streams=" + (sim.server() == null ? 0 : sim.server().streamCount());
      } else {
        sim.closeAndDrain(sim.nowNs() + QUIESCE_LIMIT_NS);
      }
    }
    if (res.failure == null && sim.amplificationViolations > 0) {
      // RFC 9000 §8.1: checked on every run, over every handshake.
      res.failure = "anti-amplification limit broken " + sim.amplificationViolations
          + " times; first: " + sim.amplificationViolation;
    }
    if (res.failure == null && sim.pathAmplificationViolations > 0) {
      // RFC 9000 §9.3: checked on every run, over every path the server moved to.
      res.failure = "per-path anti-amplification limit broken " + sim.pathAmplificationViolations
          + " times; first: " + sim.pathAmplificationViolation;
    }
    res.pathAmplificationViolations = sim.pathAmplificationViolations;
    res.bytesToUnvalidatedPaths = sim.bytesToUnvalidatedPaths;
    res.simulatorSpins = sim.spins;
    ConnectionStats cs = sim.client().stats();
    res.retransmittedPackets = cs.packetsRetransmitted;
    res.lostPackets = cs.packetsLost;
    res.lateLossDeclarations = cs.lossesDeclaredLate;
    res.ptos = cs.ptoCount;
    res.corruptDropped = cs.packetsFailedToOpen;
    if (sim.server() != null) {
      ConnectionStats ss = sim.server().stats();
      res.retransmittedPackets += ss.packetsRetransmitted;
      res.lostPackets += ss.packetsLost;
      res.lateLossDeclarations += ss.lossesDeclaredLate;
      res.ptos += ss.ptoCount;
      res.corruptDropped += ss.packetsFailedToOpen;
    }
    res.linkDrops = up.link().droppedPackets() + down.link().droppedPackets();
    long handshakeEnd = sim.clientApp.handshakeDoneNs < 0 ? Long.MAX_VALUE
        : sim.clientApp.handshakeDoneNs;
    // A lost handshake datagram whose copy (docs/protocol.md §4.1) arrived costs no timer.
    long handshakeCut = res.completionNs < 0 ? handshakeEnd
        : Math.min(handshakeEnd, res.completionNs);
    res.handshakeLosses = up.lostBeforeUncovered(handshakeCut)
        + down.lostBeforeUncovered(handshakeCut);
    long roundTrip = ideal.handshakeNs();
    // Only what was lost before the run completed can have cost it time.
    long before = res.completionNs < 0 ? Long.MAX_VALUE : res.completionNs;
    res.timerOnlyLosses = up.lostWithoutLaterArrival(roundTrip, before)
        + down.lostWithoutLaterArrival(roundTrip, before);
    res.maxPtoNs = sim.maxPtoNs();
    res.maxBurstUpBytes = sim.maxBurstBytes(true);
    res.maxBurstDownBytes = sim.maxBurstBytes(false);
    res.maxServerConnections = sim.maxServerConnections;
    if (sim.server() != null) {
      res.clientPathChanges = sim.server().stats().pathChanges;
      res.serverPathsValidated = sim.server().stats().pathsValidated;
      res.serverPathResets = sim.server().stats().pathResets;
      res.serverPathBudgetHolds = sim.server().stats().datagramsHeldByPathBudget;
      res.serverMinRttNs = sim.server().rtt().minRttNs();
    }
    res.upBottleneck = profile.clientToServer().meanRateBitsPerSecond() > 0;
    res.downBottleneck = profile.serverToClient().meanRateBitsPerSecond() > 0;
    long handshakeAllowance = LinkChannel.handshakeAllowanceNs(roundTrip,
        up.uncoveredLossTimesBefore(handshakeCut), down.uncoveredLossTimesBefore(handshakeCut));
    res.lossAllowanceNs = Saturating.add(handshakeAllowance, Saturating.add(
        up.timerOnlyAllowanceNs(roundTrip, handshakeCut, before, res.maxPtoNs),
        down.timerOnlyAllowanceNs(roundTrip, handshakeCut, before, res.maxPtoNs)));
    return res;
  }
}
