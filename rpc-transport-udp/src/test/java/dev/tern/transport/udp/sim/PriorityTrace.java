package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.congestion.Bbr;
import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.packet.Versions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Traces one seeded run of the priority experiment with BBR: every datagram of either direction
 * from a chosen time until the urgent call completes, with the STREAM frames it carries
 * ({@code s<id>@<offset>+<length>}), its send and arrival times, the bottleneck queue it met
 * ({@code q}, packets), and the server's BBR state at each of its sends.
 *
 * <p>Arguments: {@code <profile> <seed> [clean|lossy] [from-ms] [urgent-ms]} ({@code clean}
 * strips loss, jitter and reordering; from-ms defaults to 300 ms before the urgent call;
 * urgent-ms, the urgent call's start, to 2,500 ms), or
 * {@code scan <n> [threshold-ms]}, which lists the seeds among 1..n on {@code mobile} whose urgent
 * call took over the threshold (500 ms unless given), or {@code probes <n>}, which counts the
 * runs among 1..n in which the client's probe timer fired during the urgent call and the bytes
 * the client sent meanwhile (the cost of probing an urgent tail early).
 */
public final class PriorityTrace {
  private static final long MS = 1_000_000L;

  private PriorityTrace() {}

  /** Prints the trace of one run, or the slow seeds of a scan. */
  public static void main(String[] args) {
    if (args.length > 1 && args[0].equals("scan")) {
      scan(Integer.parseInt(args[1]), args.length > 2 ? Long.parseLong(args[2]) : 500);
      return;
    }
    if (args.length > 1 && args[0].equals("probes")) {
      probes(Integer.parseInt(args[1]));
      return;
    }
    LinkProfile profile = SimProfiles.get(args.length > 0 ? args[0] : "mobile");
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
    if (args.length > 2 && args[2].equals("clean")) {
      profile = new LinkProfile(profile.name() + "-clean", "without loss, jitter, reordering",
          CcExperiments.clean(profile.clientToServer()),
          CcExperiments.clean(profile.serverToClient()));
    }
    long urgentNs = args.length > 4 ? Long.parseLong(args[4]) * MS : CcExperiments.URGENT_START_NS;
    long fromNs = args.length > 3 ? Long.parseLong(args[3]) * MS : urgentNs - 300 * MS;
    trace(profile, seed, fromNs, urgentNs);
  }

  private static void scan(int seeds, long thresholdMs) {
    for (int seed = 1; seed <= seeds; seed++) {
      CcExperiments.PriorityResult r = CcExperiments.urgentAmidBulkSeed(
          SimProfiles.get("mobile"), seed, CongestionControl.BBR);
      long latency = r.latencyNs.length == 0 ? -1 : r.latencyNs[0];
      if (latency > thresholdMs * MS || latency < 0) {
        System.out.printf(Locale.ROOT, "seed %d latency %.1f ms%n", seed, latency / 1e6);
      }
    }
  }

  private static void probes(int seeds) {
    LinkProfile profile = SimProfiles.get("mobile");
    ConnectionConfig config = ConnectionConfig.builder().priorityScheduling(true)
        .congestionControl(CongestionControl.BBR).build();
    int runsWithProbe = 0;
    long bytes = 0;
    for (long seed = 1; seed <= seeds; seed++) {
      List<Call> calls = new ArrayList<>();
      for (int i = 0; i < CcExperiments.BULK_CALLS; i++) {
        calls.add(new Call(0, 512, CcExperiments.BULK_RESPONSE_BYTES, 5));
      }
      Call urgent = new Call(CcExperiments.URGENT_START_NS, 2048, 8192, 0);
      calls.add(urgent);
      Simulation sim = new Simulation(seed,
          new LinkChannel(new Link(profile.clientToServer(), seed * 31 + 1, 0)),
          new LinkChannel(new Link(profile.serverToClient(), seed * 31 + 2, 0)), config, config,
          calls);
      sim.runUntil(() -> sim.nowNs() >= CcExperiments.URGENT_START_NS || sim.fatal() != null,
          SimRun.CALL_LIMIT_NS);
      long pto = sim.client().stats().ptoCount;
      long sent = sim.client().stats().bytesSent;
      sim.runUntil(() -> urgent.doneNs() >= 0 || sim.fatal() != null, SimRun.CALL_LIMIT_NS);
      if (sim.client().stats().ptoCount > pto) {
        runsWithProbe++;
      }
      bytes += sim.client().stats().bytesSent - sent;
    }
    System.out.printf(Locale.ROOT,
        "%d runs: the client's probe timer fired during the urgent call in %d; the client sent "
            + "%.0f bytes per call on average%n", seeds, runsWithProbe, (double) bytes / seeds);
  }

  private static void trace(LinkProfile profile, long seed, long fromNs, long urgentNs) {
    // The trace reads frames off the wire: plaintext version 1 (docs/protocol.md §9).
    ConnectionConfig config = ConnectionConfig.builder().priorityScheduling(true)
        .congestionControl(CongestionControl.BBR).versions(Versions.V1).build();
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < CcExperiments.BULK_CALLS; i++) {
      calls.add(new Call(0, 512, CcExperiments.BULK_RESPONSE_BYTES, 5));
    }
    Call urgent = new Call(urgentNs, 2048, 8192, 0);
    calls.add(urgent);
    Link upLink = new Link(profile.clientToServer(), seed * 31 + 1, 0);
    Link downLink = new Link(profile.serverToClient(), seed * 31 + 2, 0);
    Channel up = traced("UP  ", new LinkChannel(upLink), upLink, fromNs);
    Channel downTraced = traced("DOWN", new LinkChannel(downLink), downLink, fromNs);
    Simulation[] sim = new Simulation[1];
    Bbr.Mode[] lastMode = new Bbr.Mode[1];
    Channel down = (now, dg, at, corrupt) -> {
      if (sim[0] != null && sim[0].server().congestionController() instanceof Bbr b) {
        if (b.mode() != lastMode[0]) {
          lastMode[0] = b.mode();
          System.out.printf(Locale.ROOT, "MODE t=%.1f %s%n", now / 1e6, state(b, sim[0]));
        }
        if (now >= fromNs) {
          System.out.println("     bbr " + state(b, sim[0]));
        }
      }
      return downTraced.transmit(now, dg, at, corrupt);
    };
    sim[0] = new Simulation(seed, up, down, config, config, calls);
    sim[0].runUntil(() -> urgent.doneNs() >= 0 || sim[0].fatal() != null, SimRun.CALL_LIMIT_NS);
    System.out.printf(Locale.ROOT, "urgent opened %.1f done %.1f latency %.1f ms ideal %.1f%n",
        urgent.openedNs() / 1e6, urgent.doneNs() / 1e6,
        (urgent.doneNs() - urgent.openedNs()) / 1e6, profile.idealRoundTripNs(2048, 8192) / 1e6);
    System.out.println("server " + sim[0].server().stats() + "; client " + sim[0].client().stats());
  }

  private static String state(Bbr b, Simulation sim) {
    return String.format(Locale.ROOT, "%s bw=%.0fkbit/s minRtt=%.1f cwnd=%d srtt=%.1f", b.mode(),
        b.bandwidthEstimateBytesPerSecond() * 8 / 1e3, b.minRttNs() / 1e6,
        b.congestionWindowBytes(), sim.server().rtt().smoothedRttNs() / 1e6);
  }

  private static Channel traced(String dir, Channel inner, Link link, long fromNs) {
    return (now, dg, at, corrupt) -> {
      int queued = link.queuedPackets();
      List<long[]> frames = StreamFramesOf.parse(dg);
      int size = dg.remaining();
      int n = inner.transmit(now, dg, at, corrupt);
      if (now >= fromNs) {
        StringBuilder sb = new StringBuilder();
        for (long[] f : frames) {
          sb.append(" s").append(f[0]).append('@').append(f[1]).append('+').append(f[2]);
        }
        System.out.printf(Locale.ROOT, "%s t=%8.1f size=%4d q=%2d %s%s%n", dir, now / 1e6, size,
            queued, n == 0 ? "LOST" : String.format(Locale.ROOT, "arr=%8.1f owd=%6.1f",
                at[0] / 1e6, (at[0] - now) / 1e6), sb);
      }
      return n;
    };
  }
}
