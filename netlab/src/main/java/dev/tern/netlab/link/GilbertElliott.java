package dev.tern.netlab.link;

import java.util.SplittableRandom;

/**
 * The two-state Gilbert channel over fixed time slots (see {@link LinkConfig} for the model).
 * The state is a function of time and seed only: the sequence of sojourns is drawn from its own
 * random stream whatever the traffic, so every transport meets the same bursts.
 */
final class GilbertElliott {
  private final long slotNs;
  private final double logStayGood;
  private final double logStayBad;
  private final SplittableRandom rng;
  private boolean bad;
  private long stateEndNs;

  GilbertElliott(LinkConfig cfg, long seed, long epochNs) {
    this.slotNs = cfg.burstSlotNs();
    double r = 1.0 / cfg.meanBurstPackets();
    double l = cfg.burstLossRate();
    double p = l * r / (1 - l);
    this.logStayGood = Math.log1p(-Math.min(p, 1));
    this.logStayBad = Math.log1p(-Math.min(r, 1));
    this.rng = new SplittableRandom(seed);
    // Start in the stationary distribution, so the loss rate holds from the first slot.
    this.bad = rng.nextDouble() < l;
    long slots = sojournSlots(bad);
    this.stateEndNs = slots > (Long.MAX_VALUE - epochNs) / slotNs ? Long.MAX_VALUE : epochNs + slots * slotNs;
  }

  /** Whether the channel is in its bad state at {@code nowNs}; time must not go backwards. */
  boolean isBadAt(long nowNs) {
    while (nowNs >= stateEndNs) {
      bad = !bad;
      long slots = sojournSlots(bad);
      stateEndNs = slots > (Long.MAX_VALUE - stateEndNs) / slotNs
          ? Long.MAX_VALUE : stateEndNs + slots * slotNs;
    }
    return bad;
  }

  /** Geometric number of slots (at least one) spent in a state left with probability 1 - e^logStay. */
  private long sojournSlots(boolean inBad) {
    double logStay = inBad ? logStayBad : logStayGood;
    if (logStay == 0) {
      return Long.MAX_VALUE / 4; // never leaves
    }
    if (logStay == Double.NEGATIVE_INFINITY) {
      return 1;
    }
    double u = 1 - rng.nextDouble(); // (0, 1]
    double k = Math.floor(Math.log(u) / logStay);
    return k >= Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : 1 + (long) k;
  }
}
