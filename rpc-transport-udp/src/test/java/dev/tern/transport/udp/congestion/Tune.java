package dev.tern.transport.udp.congestion;
import dev.tern.netlab.link.LinkConfig;
public class Tune { public static void main(String[] a){
  long MS=1_000_000L, S=1000*MS;
  for (long buf : new long[]{200_000}) {
    for (CongestionControl other : new CongestionControl[]{CongestionControl.BBR, CongestionControl.CUBIC}) {
      for (long seed=1; seed<=2; seed++) {
      PathSim sim = new PathSim(LinkConfig.builder().rateBitsPerSecond(20_000_000L).delayMs(20).queueLimitBytes(buf).build(), seed);
      PathSim.Flow x = sim.addFlow(CongestionControllers.create(CongestionControl.BBR, 1350, seed), 0, Long.MAX_VALUE);
      PathSim.Flow y = sim.addFlow(CongestionControllers.create(other, 1350, seed+7), 2*S, Long.MAX_VALUE);
      x.logSends=false; y.logSends=false;
      sim.run(60*S);
      System.out.printf("buf %d BBR vs %s seed %d: %.2f %.2f ratio %.2f%n", buf, other, seed, x.goodputBitsPerSecond(30*S,60*S)/1e6, y.goodputBitsPerSecond(30*S,60*S)/1e6, x.goodputBitsPerSecond(30*S,60*S)/y.goodputBitsPerSecond(30*S,60*S));
      }
    }
  }
  for (String p : new String[]{"lte-verizon","lte-att","lte-tmobile","lossy-fat","mobile"}) System.out.println(CcExperiments.bulk(p, CongestionControl.BBR, 60*S, 1));
}}
