package dev.tern.transport.udp.congestion;

import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import java.util.Locale;

/**
 * Congestion-control experiments on {@link PathSim} over netlab's link profiles: goodput under
 * random loss, queueing delay on cellular traces, sharing between flows. Run with
 * {@code mvn -q -o -pl rpc-transport-udp -am test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=dev.tern.transport.udp.congestion.CcExperiments} (or {@code java -cp} over the
 * module's and netlab's class directories); the figures go to docs/udp-congestion.md.
 */
public final class CcExperiments {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;

  private CcExperiments() {}

  /** Prints every experiment's figures; {@code args[0]} is the virtual duration, s (60). */
  public static void main(String[] args) {
    long duration = (args.length > 0 ? Long.parseLong(args[0]) : 60) * S;
    for (String profile : new String[] {"lossy-fat", "mobile", "lte-verizon", "lte-tmobile",
        "lte-att"}) {
      for (CongestionControl cc : CongestionControl.values()) {
        Result r = bulk(profile, cc, duration, 1);
        System.out.println(r);
      }
    }
    for (String profile : new String[] {"lossy-fat", "wifi"}) {
      System.out.println(share(profile, CongestionControl.BBR, CongestionControl.CUBIC, duration, 1));
      System.out.println(share(profile, CongestionControl.BBR, CongestionControl.BBR, duration, 1));
      System.out.println(share(profile, CongestionControl.CUBIC, CongestionControl.CUBIC, duration, 1));
    }
  }

  /** The figures of one bulk transfer. */
  static final class Result {
    String profile;
    CongestionControl algorithm;
    double goodputBitsPerSecond;
    double linkBitsPerSecond;
    double lossRate;
    long timeTo80PercentNs;
    long p95QueueNs;
    long rttNs;

    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "%-12s %-8s goodput %7.3f Mbit/s = %5.1f%% of link, time to 80%% %s, "
              + "sender loss %.2f%%, p95 queueing %.0f ms (base RTT %d ms)",
          profile, algorithm, goodputBitsPerSecond / 1e6,
          100 * goodputBitsPerSecond / linkBitsPerSecond,
          timeTo80PercentNs < 0 ? "never" : String.format(Locale.ROOT, "%.1f s", timeTo80PercentNs / 1e9),
          100 * lossRate, p95QueueNs / 1e6, rttNs / MS);
    }
  }

  /** One flow of {@code algorithm} over {@code profile}'s downlink for {@code durationNs}. */
  static Result bulk(String profile, CongestionControl algorithm, long durationNs, long seed) {
    LinkProfile p = LinkProfiles.get(profile);
    PathSim sim = new PathSim(p.serverToClient(), seed);
    PathSim.Flow f = sim.addFlow(CongestionControllers.create(algorithm, PathSim.MSS, seed), 0,
        Long.MAX_VALUE);
    f.logSends = false;
    sim.run(durationNs);
    Result r = new Result();
    r.profile = profile;
    r.algorithm = algorithm;
    r.linkBitsPerSecond = p.serverToClient().meanRateBitsPerSecond();
    r.goodputBitsPerSecond = f.goodputBitsPerSecond(0, durationNs);
    r.lossRate = (double) f.lostPackets / f.sentPackets;
    r.timeTo80PercentNs = f.timeToReachNs(0.8 * r.linkBitsPerSecond);
    r.p95QueueNs = sim.percentileQueueDelayNs(0.95);
    r.rttNs = p.rttNs();
    return r;
  }

  /** Two flows sharing {@code profile}'s downlink; the second starts 2 s later. */
  static String share(String profile, CongestionControl a, CongestionControl b, long durationNs,
      long seed) {
    double[] g = shareGoodputs(profile, a, b, durationNs, seed);
    return String.format(Locale.ROOT,
        "%-12s %s vs %s: %.2f / %.2f Mbit/s over the second half, ratio %.2f (fair share 1.00)",
        profile, a, b, g[0] / 1e6, g[1] / 1e6, g[0] / g[1]);
  }

  /** Goodputs of two flows over the second half of the run, bit/s. */
  static double[] shareGoodputs(String profile, CongestionControl a, CongestionControl b,
      long durationNs, long seed) {
    LinkProfile p = LinkProfiles.get(profile);
    PathSim sim = new PathSim(p.serverToClient(), seed);
    PathSim.Flow fa = sim.addFlow(CongestionControllers.create(a, PathSim.MSS, seed), 0,
        Long.MAX_VALUE);
    PathSim.Flow fb = sim.addFlow(CongestionControllers.create(b, PathSim.MSS, seed + 1), 2 * S,
        Long.MAX_VALUE);
    fa.logSends = false;
    fb.logSends = false;
    sim.run(durationNs);
    return new double[] {fa.goodputBitsPerSecond(durationNs / 2, durationNs),
        fb.goodputBitsPerSecond(durationNs / 2, durationNs)};
  }
}
