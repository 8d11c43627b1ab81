package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.congestion.CongestionControllers;
import dev.tern.transport.udp.connection.ConnectionConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Whole-connection experiments for congestion control and scheduling in the simulator. Run with
 * {@code java -cp <module and netlab classes> dev.tern.transport.udp.sim.CcExperiments [runs]}
 * (docs/udp-congestion.md).
 */
public final class CcExperiments {
  private static final long MS = 1_000_000L;
  /**
   * When the urgent call starts in the main experiment: 2.5 s in, the six bulk responses (about
   * 4.5 s of the mobile link) have 2 s left queued at the server and the controller has left
   * its start-up phase. The run at 1 s catches BBR still in STARTUP.
   */
  static final long URGENT_START_NS = 2_500 * MS;
  static final long EARLY_URGENT_START_NS = 1_000 * MS;
  static final int BULK_CALLS = 6;
  static final int BULK_RESPONSE_BYTES = 100 * 1024;

  private CcExperiments() {}

  /**
   * Prints the PMTU and priority experiments' figures; {@code args[0]} is the number of seeds of
   * the priority experiment (1000); {@code args[1] = priority} prints the priority experiment only,
   * {@code args[1] = bbr} only its BBR runs with the priority scheduler; {@code args[2]} is the
   * first seed of the priority experiment (1).
   */
  public static void main(String[] args) {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    boolean bbrOnly = args.length > 1 && args[1].equals("bbr");
    boolean priorityOnly = bbrOnly || args.length > 1 && args[1].equals("priority");
    long firstSeed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    String[] mtuProfiles = {"lan", "wifi", "lossy-fat", "mobile"};
    for (String profile : priorityOnly ? new String[0] : mtuProfiles) {
      for (int limit : new int[] {1472, 1452, 1300}) {
        for (long seed = 1; seed <= 3; seed++) {
          System.out.println(mtu(profile, limit, seed));
        }
      }
    }
    // The same link without loss, jitter or reordering separates queueing from loss recovery.
    LinkProfile mobile = SimProfiles.get("mobile");
    LinkProfile clean = new LinkProfile("mobile-clean", "mobile without loss, jitter, reordering",
        clean(mobile.clientToServer()), clean(mobile.serverToClient()));
    System.out.println("BBR, urgent call at 2500 ms: "
        + urgentAmidBulk(clean, firstSeed, runs, true, CongestionControl.BBR, URGENT_START_NS));
    for (long start : new long[] {URGENT_START_NS, EARLY_URGENT_START_NS}) {
      for (CongestionControl cc : CongestionControl.values()) {
        for (boolean priorities : new boolean[] {true, false}) {
          if (bbrOnly && (cc != CongestionControl.BBR || !priorities)) {
            continue;
          }
          System.out.println(cc + ", urgent call at " + start / MS + " ms: "
              + urgentAmidBulk(SimProfiles.get("mobile"), firstSeed, runs, priorities, cc, start));
        }
      }
    }
  }

  /**
   * A 1 MiB download (a feed of seven calls when the path drops above 1300 bytes) over a path
   * that drops datagrams with more than {@code pathMaxPayload} bytes of UDP payload.
   */
  static String mtu(String profileName, int pathMaxPayload, long seed) {
    LinkProfile p = SimProfiles.get(profileName);
    LinkChannel u = new LinkChannel(new Link(p.clientToServer(), seed * 31 + 1, 0));
    LinkChannel d = new LinkChannel(new Link(p.serverToClient(), seed * 31 + 2, 0));
    Channel up = (n, dg, at, c) -> dg.remaining() > pathMaxPayload ? 0 : u.transmit(n, dg, at, c);
    Channel down = (n, dg, at, c) -> dg.remaining() > pathMaxPayload ? 0
        : d.transmit(n, dg, at, c);
    List<Call> calls = pathMaxPayload < 1350 ? Scenario.FEED.calls(new java.util.Random(seed))
        : List.of(new Call(0, 128, 1 << 20));
    ConnectionConfig config = ConnectionConfig.defaults();
    Simulation sim = new Simulation(seed, up, down, config, config, calls);
    sim.runUntil(() -> sim.allCallsDone() || sim.fatal() != null, SimRun.CALL_LIMIT_NS);
    return String.format(Locale.ROOT,
        "%-9s path max %d seed %d: %s in %.0f ms; server datagram %d after %d probes "
            + "(%d black holes), client %d after %d probes%s",
        profileName, pathMaxPayload, seed, calls.size() == 1 ? "1 MiB" : "feed of 7 calls",
        sim.nowNs() / 1e6, sim.server().maxDatagramBytes(),
        sim.server().mtuDiscovery().probesSent(), sim.server().mtuDiscovery().blackHolesDetected(),
        sim.client().maxDatagramBytes(), sim.client().mtuDiscovery().probesSent(),
        sim.allCallsDone() ? "" : " NOT DONE: " + sim.fatal());
  }

  static LinkConfig clean(LinkConfig c) {
    return LinkConfig.builder().rateBitsPerSecond(c.rateBitsPerSecond())
        .delayNs(c.propagationDelayNs()).queueLimitBytes(c.queueLimitBytes()).build();
  }

  /** The urgent call's latencies over many seeded runs. */
  static final class PriorityResult {
    String profile;
    boolean priorities;
    long idealNs;
    long rttNs;
    long[] latencyNs;
    /** When the last of the six bulk responses completed, from the start of the run. */
    long[] bulkDoneNs;
    int failures;
    String firstFailure;

    long percentileNs(double p) {
      return latencyNs[Math.min(latencyNs.length - 1, (int) (p * latencyNs.length))];
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "%s, %s: urgent 2 KiB -> 8 KiB amid %d x %d KiB, %d runs: p50 %.0f ms (%.2f x ideal), "
              + "p99 %.0f ms (ideal + %.2f RTT), max %.0f ms; ideal %.0f ms, RTT %.0f ms; "
              + "six responses done p50 %.0f ms, p99 %.0f ms; failed runs %d%s",
          profile, priorities ? "priority scheduler" : "round robin", BULK_CALLS,
          BULK_RESPONSE_BYTES / 1024, latencyNs.length, percentileNs(0.5) / 1e6,
          (double) percentileNs(0.5) / idealNs, percentileNs(0.99) / 1e6,
          (double) (percentileNs(0.99) - idealNs) / rttNs, latencyNs[latencyNs.length - 1] / 1e6,
          idealNs / 1e6, rttNs / 1e6, bulkDoneNs[bulkDoneNs.length / 2] / 1e6,
          bulkDoneNs[Math.min(bulkDoneNs.length - 1, (int) (0.99 * bulkDoneNs.length))] / 1e6,
          failures, firstFailure == null ? "" : " (" + firstFailure + ")");
    }
  }

  /**
   * Six 100 KiB low-priority (urgency 5) responses, then, once they are flowing, an urgent
   * (urgency 0) 2 KiB -> 8 KiB call; the urgent call's latency from its start to its last byte.
   */
  static PriorityResult urgentAmidBulk(String profileName, int runs, boolean priorities) {
    return urgentAmidBulk(profileName, runs, priorities, CongestionControllers.defaultAlgorithm(),
        URGENT_START_NS);
  }

  /** As above with congestion control {@code cc} at both ends, the urgent call at a given time. */
  static PriorityResult urgentAmidBulk(String profileName, int runs, boolean priorities,
      CongestionControl cc, long urgentStartNs) {
    return urgentAmidBulk(SimProfiles.get(profileName), runs, priorities, cc, urgentStartNs);
  }

  /** One seed of the experiment with priorities, the urgent call at the usual time. */
  static PriorityResult urgentAmidBulkSeed(LinkProfile profile, long seed, CongestionControl cc) {
    return urgentAmidBulk(profile, seed, 1, true, cc, URGENT_START_NS);
  }

  /** As above on {@code profile}. */
  static PriorityResult urgentAmidBulk(LinkProfile profile, int runs, boolean priorities,
      CongestionControl cc, long urgentStartNs) {
    return urgentAmidBulk(profile, 1, runs, priorities, cc, urgentStartNs);
  }

  /** As above for seeds {@code firstSeed} to {@code firstSeed + runs - 1}. */
  static PriorityResult urgentAmidBulk(LinkProfile profile, long firstSeed, int runs,
      boolean priorities, CongestionControl cc, long urgentStartNs) {
    String profileName = profile.name();
    ConnectionConfig config = ConnectionConfig.builder().priorityScheduling(priorities)
        .congestionControl(cc).build();
    PriorityResult res = new PriorityResult();
    res.profile = profileName;
    res.priorities = priorities;
    res.idealNs = profile.idealRoundTripNs(2048, 8192);
    res.rttNs = profile.rttNs();
    long[] latencies = new long[runs];
    long[] bulkDone = new long[runs];
    int n = 0;
    for (long seed = firstSeed; seed < firstSeed + runs; seed++) {
      List<Call> calls = new ArrayList<>();
      for (int i = 0; i < BULK_CALLS; i++) {
        calls.add(new Call(0, 512, BULK_RESPONSE_BYTES, 5));
      }
      Call urgent = new Call(urgentStartNs, 2048, 8192, 0);
      calls.add(urgent);
      LinkChannel up = new LinkChannel(new Link(profile.clientToServer(), seed * 31 + 1, 0));
      LinkChannel down = new LinkChannel(new Link(profile.serverToClient(), seed * 31 + 2, 0));
      Simulation sim = new Simulation(seed, up, down, config, config, calls);
      boolean done = sim.runUntil(() -> urgent.doneNs() >= 0 || sim.fatal() != null,
          SimRun.CALL_LIMIT_NS);
      if (!done || urgent.doneNs() < 0) {
        res.failures++;
        if (res.firstFailure == null) {
          res.firstFailure = "seed " + seed + ": " + sim.fatal();
        }
        continue;
      }
      // The bulk responses' completion time shows what the urgent call cost them.
      sim.runUntil(() -> sim.allCallsDone() || sim.fatal() != null, SimRun.CALL_LIMIT_NS);
      long last = 0;
      for (Call c : calls) {
        if (c != urgent) {
          // A response not done within the call limit counts as the limit.
          last = Math.max(last, c.doneNs() < 0 ? SimRun.CALL_LIMIT_NS : c.doneNs());
        }
      }
      bulkDone[n] = last;
      latencies[n++] = urgent.doneNs() - urgent.openedNs();
    }
    res.latencyNs = Arrays.copyOf(latencies, n);
    Arrays.sort(res.latencyNs);
    res.bulkDoneNs = Arrays.copyOf(bulkDone, n);
    Arrays.sort(res.bulkDoneNs);
    return res;
  }
}
