package dev.tern.transport.udp.congestion;

import java.util.Locale;

/**
 * Congestion-control experiments on {@link PathSim}: goodput under random loss, queueing delay,
 * sharing between flows. Run with
 * {@code mvn -q -o -pl rpc-transport-udp -am test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=dev.tern.transport.udp.congestion.CcExperiments}.
 */
public final class CcExperiments {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;

  private CcExperiments() {}

  /** Prints every experiment's figures. */
  public static void main(String[] args) {
    for (CongestionControl cc : CongestionControl.values()) {
      lossyFat(cc, 60 * S, 1);
    }
    for (CongestionControl cc : CongestionControl.values()) {
      mobile(cc, 60 * S, 1);
    }
  }

  /** `lossy-fat`: 100 Mbit/s, RTT 100 ms, 1.5% random loss; returns goodput, bit/s. */
  static double lossyFat(CongestionControl algorithm, long durationNs, long seed) {
    long rate = 100_000_000L;
    PathSim sim = new PathSim(rate, 100 * MS, rate / 8 / 10, 0.015, seed);
    PathSim.Flow f = sim.addFlow(CongestionControllers.create(algorithm, PathSim.MSS, seed), 0,
        Long.MAX_VALUE);
    f.logSends = false;
    sim.run(durationNs);
    double goodput = f.goodputBitsPerSecond(0, durationNs);
    System.out.printf(Locale.ROOT,
        "lossy-fat %-8s goodput %.1f Mbit/s (%.1f%% of rate x (1-loss)), time to 80%% %s, "
            + "loss %.2f%%, p95 queue %.1f ms%n",
        algorithm, goodput / 1e6, 100 * goodput / (rate * 0.985), fmtTime(f.timeToReachNs(0.8 * rate)),
        100.0 * f.lostPackets / f.sentPackets, sim.percentileQueueDelayNs(0.95) / 1e6);
    return goodput;
  }

  /** `mobile`: 1.1 Mbit/s, RTT 200 ms, 0.6% random loss; returns goodput, bit/s. */
  static double mobile(CongestionControl algorithm, long durationNs, long seed) {
    long rate = 1_100_000L;
    PathSim sim = new PathSim(rate, 200 * MS, 64_000, 0.006, seed);
    PathSim.Flow f = sim.addFlow(CongestionControllers.create(algorithm, PathSim.MSS, seed), 0,
        Long.MAX_VALUE);
    f.logSends = false;
    sim.run(durationNs);
    double goodput = f.goodputBitsPerSecond(0, durationNs);
    System.out.printf(Locale.ROOT,
        "mobile    %-8s goodput %.3f Mbit/s (%.1f%% of link), loss %.2f%%, p95 queue %.1f ms%n",
        algorithm, goodput / 1e6, 100 * goodput / rate, 100.0 * f.lostPackets / f.sentPackets,
        sim.percentileQueueDelayNs(0.95) / 1e6);
    return goodput;
  }

  private static String fmtTime(long ns) {
    return ns < 0 ? "never" : String.format(Locale.ROOT, "%.1f s", ns / 1e9);
  }
}
