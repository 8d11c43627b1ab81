package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.connection.ConnectionConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Traces one seeded run of the priority experiment: every datagram of either direction between
 * the urgent call's start and its end, with the STREAM frames it carries, its send and delivery
 * times and the bottleneck queue it met. Run with {@code java -cp ... PriorityTrace [profile]
 * [seed]}.
 */
public final class PriorityTrace {
  private PriorityTrace() {}

  /** Prints the trace of one run. */
  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("scan")) {
      int n = Integer.parseInt(args[1]);
      long[] lat = new long[n];
      for (int seed = 1; seed <= n; seed++) {
        CcExperiments.PriorityResult r = CcExperiments.urgentAmidBulkSeed(
            SimProfiles.get("mobile"), seed, CongestionControl.BBR);
        lat[seed - 1] = r.latencyNs.length == 0 ? -1 : r.latencyNs[0];
        if (lat[seed - 1] > 500_000_000L || lat[seed - 1] < 0) {
          System.out.printf(Locale.ROOT, "seed %d latency %.1f ms%n", seed, lat[seed - 1] / 1e6);
        }
      }
      return;
    }
    String profileName = args.length > 0 ? args[0] : "mobile";
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
    LinkProfile profile = SimProfiles.get(profileName);
    if (args.length > 2 && args[2].equals("clean")) {
      profile = new LinkProfile("mobile-clean", "clean", CcExperiments.clean(
          profile.clientToServer()), CcExperiments.clean(profile.serverToClient()));
    }
    ConnectionConfig config = ConnectionConfig.builder().priorityScheduling(true)
        .congestionControl(CongestionControl.BBR).build();
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < CcExperiments.BULK_CALLS; i++) {
      calls.add(new Call(0, 512, CcExperiments.BULK_RESPONSE_BYTES, 5));
    }
    Call urgent = new Call(CcExperiments.URGENT_START_NS, 2048, 8192, 0);
    calls.add(urgent);
    long from = args.length > 3 ? Long.parseLong(args[3]) * 1_000_000L
        : CcExperiments.URGENT_START_NS - 300_000_000L;
    Link upLink = new Link(profile.clientToServer(), seed * 31 + 1, 0);
    Link downLink = new Link(profile.serverToClient(), seed * 31 + 2, 0);
    Channel up = traced("UP  ", new LinkChannel(upLink), upLink, from);
    Simulation[] holder = new Simulation[1];
    Object[] lastMode = new Object[1];
    Channel down0 = traced("DOWN", new LinkChannel(downLink), downLink, from);
    Channel down = (now, dg, at, corrupt) -> {
      if (holder[0] != null
          && holder[0].server().congestionController() instanceof dev.tern.transport.udp.congestion.Bbr b
          && b.mode() != lastMode[0]) {
        lastMode[0] = b.mode();
        System.out.printf(Locale.ROOT, "MODE t=%.1f %s bw=%.0fkbit/s minRtt=%.1f cwnd=%d%n", now / 1e6,
            b.mode(), b.bandwidthEstimateBytesPerSecond() * 8 / 1e3, b.minRttNs() / 1e6,
            b.congestionWindowBytes());
      }
      if (now >= from && holder[0] != null
          && holder[0].server().congestionController() instanceof dev.tern.transport.udp.congestion.Bbr b) {
        System.out.printf(Locale.ROOT, "     bbr %s bw=%.0fkbit/s minRtt=%.1f cwnd=%d srtt=%.1f%n",
            b.mode(), b.bandwidthEstimateBytesPerSecond() * 8 / 1e3, b.minRttNs() / 1e6,
            b.congestionWindowBytes(), holder[0].server().rtt().smoothedRttNs() / 1e6);
      }
      return down0.transmit(now, dg, at, corrupt);
    };
    Simulation sim = new Simulation(seed, up, down, config, config, calls);
    holder[0] = sim;
    sim.runUntil(() -> urgent.doneNs() >= 0 || sim.fatal() != null, SimRun.CALL_LIMIT_NS);
    System.out.printf(Locale.ROOT, "urgent opened %.1f done %.1f latency %.1f ms ideal %.1f%n",
        urgent.openedNs() / 1e6, urgent.doneNs() / 1e6,
        (urgent.doneNs() - urgent.openedNs()) / 1e6, profile.idealRoundTripNs(2048, 8192) / 1e6);
    System.out.println("server stats " + sim.server().stats() + " client " + sim.client().stats());
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
