package dev.tern.transport.udp.congestion;

import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import java.util.Locale;

/**
 * Congestion-control experiments on {@link PathSim} over netlab's link profiles: goodput under
 * random loss, queueing delay on cellular traces, sharing between flows. Run with
 * {@code mvn -q -o -pl rpc-transport-udp -am test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=dev.tern.transport.udp.congestion.PathExperiments} (or {@code java -cp} over the
 * module's and netlab's class directories); the figures go to docs/udp-congestion.md.
 */
public final class PathExperiments {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;

  private PathExperiments() {}

  /**
   * Prints every experiment's figures; {@code args[0]} is the virtual duration in s (60),
   * {@code args[1]} the number of seeds per bulk cell (1; the median and range are printed);
   * {@code args[2] = "lte"} prints only the LTE queueing table ({@link #lte}).
   */
  public static void main(String[] args) {
    long duration = (args.length > 0 ? Long.parseLong(args[0]) : 60) * S;
    int seeds = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    if (args.length > 2 && args[2].equals("lte")) {
      lte(duration, seeds); // the LTE queueing table alone (about 10 s for 60 s x 10 seeds)
      return;
    }
    if (args.length > 2) {
      throw new IllegalArgumentException("third argument must be \"lte\" (or absent): " + args[2]);
    }
    for (String profile : new String[] {"lossy-fat", "mobile", "lte-verizon", "lte-tmobile",
        "lte-att", "3g-tmobile", "mobile-tail", "crowded", "wifi"}) {
      for (CongestionControl cc : CongestionControl.values()) {
        if (seeds == 1) {
          System.out.println(bulk(profile, cc, duration, 1));
          continue;
        }
        double[] goodput = new double[seeds];
        double[] p95 = new double[seeds];
        Result r = null;
        for (int i = 0; i < seeds; i++) {
          r = bulk(profile, cc, duration, i + 1);
          goodput[i] = 100 * r.goodputBitsPerSecond / r.linkBitsPerSecond;
          p95[i] = r.p95QueueNs / 1e6;
        }
        java.util.Arrays.sort(goodput);
        java.util.Arrays.sort(p95);
        System.out.printf(Locale.ROOT,
            "%-12s %-8s %d seeds: goodput %% of link median %.1f (min %.1f, max %.1f); "
                + "p95 queueing median %.0f ms (min %.0f, max %.0f)%n",
            profile, cc, seeds, goodput[seeds / 2], goodput[0], goodput[seeds - 1],
            p95[seeds / 2], p95[0], p95[seeds - 1]);
      }
    }
    lte(duration, seeds);
    for (long queueBdps : new long[] {2, 1}) {
      for (CongestionControl other : CongestionControl.values()) {
        for (long seed = 1; seed <= 3; seed++) {
          double[] g = sharedBottleneck(CongestionControl.BBR, other, queueBdps, duration, seed);
          System.out.printf(Locale.ROOT,
              "shared 20 Mbit/s 40 ms queue %d BDP: BBR vs %-8s seed %d: %.2f / %.2f Mbit/s, "
                  + "BBR at %.2f x fair share%n",
              queueBdps, other, seed, g[0] / 1e6, g[1] / 1e6, 2 * g[0] / (g[0] + g[1]));
        }
      }
    }
  }

  /**
   * The LTE queueing table: reference senders at a fixed 25% and 120% of the trace's mean rate,
   * then every controller over {@code seeds} seeds, each with its goodput, the self-inflicted
   * queueing p95 and the standing self-inflicted queue p95 ({@link
   * PathSim#percentileStandingSelfQueueNs}, window one base RTT).
   */
  static void lte(long duration, int seeds) {
    for (String profile : new String[] {"lte-verizon", "lte-tmobile", "lte-att"}) {
      for (int percent : new int[] {25, 120}) {
        // What the trace imposes by itself, and what a sender that overdrives it builds.
        LinkProfile p = LinkProfiles.get(profile);
        PathSim sim = new PathSim(p.serverToClient(), 1);
        PathSim.Flow f = sim.addFlow(new FixedRate(
            p.serverToClient().meanRateBitsPerSecond() / 8 * percent / 100), 0, Long.MAX_VALUE);
        f.logSends = false;
        sim.run(duration);
        System.out.printf(Locale.ROOT,
            "%-12s fixed rate at %3d%% of the mean: queueing p50 %.0f / p95 %.0f ms; "
                + "self-inflicted p50 %.0f / p95 %.0f ms; standing p95 %.0f ms = %.2f x base RTT%n",
            profile, percent,
            sim.percentileQueueDelayNs(0.5) / 1e6, sim.percentileQueueDelayNs(0.95) / 1e6,
            sim.percentileSelfQueueDelayNs(0.5) / 1e6, sim.percentileSelfQueueDelayNs(0.95) / 1e6,
            sim.percentileStandingSelfQueueNs(0.95, p.rttNs()) / 1e6,
            sim.percentileStandingSelfQueueNs(0.95, p.rttNs()) / (double) p.rttNs());
      }
    }
    for (String profile : new String[] {"lte-verizon", "lte-tmobile", "lte-att"}) {
      for (CongestionControl cc : CongestionControl.values()) {
        double[] self = new double[seeds];
        double[] standing = new double[seeds];
        double[] goodput = new double[seeds];
        Result r = null;
        for (int i = 0; i < seeds; i++) {
          r = bulk(profile, cc, duration, i + 1);
          self[i] = r.p95SelfQueueNs / 1e6;
          standing[i] = r.p95StandingQueueNs / 1e6;
          goodput[i] = 100 * r.goodputBitsPerSecond / r.linkBitsPerSecond;
        }
        java.util.Arrays.sort(self);
        java.util.Arrays.sort(standing);
        java.util.Arrays.sort(goodput);
        double rttMs = r.rttNs / 1e6;
        System.out.printf(Locale.ROOT,
            "%-12s %-8s %d seeds: goodput %% of link median %.1f (min %.1f); self-inflicted p95 "
                + "median %.0f ms (max %.0f) = %.2f x RTT; standing p95 median %.0f ms (max %.0f)"
                + " = %.2f x RTT (max %.2f); base RTT %.0f ms%n", profile, cc, seeds,
            goodput[seeds / 2], goodput[0], self[seeds / 2], self[seeds - 1],
            self[seeds / 2] / rttMs, standing[seeds / 2], standing[seeds - 1],
            standing[seeds / 2] / rttMs, standing[seeds - 1] / rttMs, rttMs);
      }
    }
  }

  /**
   * Two flows through a 20 Mbit/s, 40 ms bottleneck with a drop-tail queue of {@code queueBdps}
   * BDP; the second starts 2 s later. Goodputs over the second half, bit/s.
   */
  static double[] sharedBottleneck(CongestionControl a, CongestionControl b, long queueBdps,
      long durationNs, long seed) {
    PathSim sim = new PathSim(dev.tern.netlab.link.LinkConfig.builder()
        .rateBitsPerSecond(20_000_000L).delayMs(20).queueLimitBytes(queueBdps * 100_000).build(),
        seed);
    PathSim.Flow fa = sim.addFlow(CongestionControllers.create(a, PathSim.MSS, seed), 0,
        Long.MAX_VALUE);
    PathSim.Flow fb = sim.addFlow(CongestionControllers.create(b, PathSim.MSS, seed + 7), 2 * S,
        Long.MAX_VALUE);
    fa.logSends = false;
    fb.logSends = false;
    sim.run(durationNs);
    return new double[] {fa.goodputBitsPerSecond(durationNs / 2, durationNs),
        fb.goodputBitsPerSecond(durationNs / 2, durationNs)};
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
    long p50QueueNs;
    long p95SelfQueueNs;
    long p95StandingQueueNs;
    long rttNs;

    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "%-12s %-8s goodput %7.3f Mbit/s = %5.1f%% of link, time to 80%% %s, "
              + "sender loss %.2f%%, queueing p50 %.0f / p95 %.0f ms (base RTT %d ms)",
          profile, algorithm, goodputBitsPerSecond / 1e6,
          100 * goodputBitsPerSecond / linkBitsPerSecond,
          timeTo80PercentNs < 0 ? "never" : String.format(Locale.ROOT, "%.1f s", timeTo80PercentNs / 1e9),
          100 * lossRate, p50QueueNs / 1e6, p95QueueNs / 1e6, rttNs / MS);
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
    r.p50QueueNs = sim.percentileQueueDelayNs(0.5);
    r.p95SelfQueueNs = sim.percentileSelfQueueDelayNs(0.95);
    r.p95StandingQueueNs = sim.percentileStandingSelfQueueNs(0.95, p.rttNs());
    r.rttNs = p.rttNs();
    return r;
  }

}
