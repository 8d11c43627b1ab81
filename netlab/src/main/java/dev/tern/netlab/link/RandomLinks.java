package dev.tern.netlab.link;

import java.util.SplittableRandom;

/**
 * Links nobody chose: a link drawn from fixed, stated ranges by a seed, so a change can be
 * checked on links outside the profiles. The same seed gives the same link on every JVM
 * ({@link SplittableRandom}'s sequence is specified). Values are rounded to the steps below, so
 * {@link CustomLinks#format} prints the link exactly and {@link CustomLinks#parse} of that text
 * rebuilds it.
 *
 * <p>The ranges ({@link #RANGES}); "log-uniform" means uniform in the logarithm:
 * <ul>
 *   <li>down rate: log-uniform in [0.5, 50] Mbit/s, step 10 kbit/s;</li>
 *   <li>up rate: log-uniform in [0.25 Mbit/s, the down rate], step 10 kbit/s;</li>
 *   <li>RTT: log-uniform in [10, 400] ms, step 1 ms, split evenly;</li>
 *   <li>loss: log-uniform in [0.01%, 3%], step 0.01%; random (probability 1/2) or
 *       Gilbert-Elliott with a mean burst uniform in [1.5, 10] packets, step 0.1;</li>
 *   <li>jitter: uniform in [0, min(50 ms, RTT / 2)], step 1 ms;</li>
 *   <li>reordering: uniform in [0, 0.5%], step 0.01%, extra delay uniform in [5, 30] ms, step
 *       1 ms;</li>
 *   <li>duplication: uniform in [0, 0.1%], step 0.01%; no corruption;</li>
 *   <li>queue, per direction: droptail of k x BDP at that direction's rate and the RTT, k
 *       log-uniform in [0.5, 4], step 0.1, never below 16 x 1500 bytes.</li>
 * </ul>
 * The channel (loss, jitter, reordering, duplication) is the same in both directions.
 */
public final class RandomLinks {
  /** The ranges, one line, for printing before a run. */
  public static final String RANGES = "down rate log-uniform 0.5-50 Mbit/s; up rate log-uniform 0.25 Mbit/s"
      + "-down rate; RTT log-uniform 10-400 ms; loss log-uniform 0.01-3%, random or (1 in 2) Gilbert-Elliott "
      + "with mean burst 1.5-10 packets; jitter 0-min(50 ms, RTT/2); reordering 0-0.5% (+5-30 ms); "
      + "duplication 0-0.1%; queue 0.5-4 x BDP per direction, at least 24000 bytes";

  /** The lowest queue a random link gets, in bytes (16 full-size packets). */
  public static final long MIN_QUEUE_BYTES = 16 * 1500;

  private RandomLinks() {}

  /** The link for {@code seed}, named {@code random-<seed>}. */
  public static LinkProfile draw(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long down = step(logUniform(r, 0.5e6, 50e6), 10_000);
    long up = Math.min(down, step(logUniform(r, 0.25e6, down), 10_000));
    long rttMs = Math.round(logUniform(r, 10, 400));
    double loss = Math.max(1, Math.round(logUniform(r, 1, 300))) / 10_000.0;
    boolean bursty = r.nextBoolean();
    double burst = Math.round(uniform(r, 1.5, 10) * 10) / 10.0;
    long jitterMs = Math.round(uniform(r, 0, Math.min(50, rttMs / 2.0)));
    double reorder = Math.round(uniform(r, 0, 50)) / 10_000.0;
    long reorderDelayMs = Math.round(uniform(r, 5, 30));
    double duplicate = Math.round(uniform(r, 0, 10)) / 10_000.0;
    double kUp = Math.round(logUniform(r, 0.5, 4) * 10) / 10.0;
    double kDown = Math.round(logUniform(r, 0.5, 4) * 10) / 10.0;
    LinkConfig.Builder b = LinkConfig.builder().delayMs(rttMs / 2.0).jitterMs(jitterMs).duplicate(duplicate);
    if (reorder > 0) {
      b.reorder(reorder, reorderDelayMs);
    }
    if (bursty) {
      b.burstLoss(loss, burst);
    } else {
      b.loss(loss);
    }
    LinkConfig upConfig = b.rateBitsPerSecond(up).queueLimitBytes(queue(up, rttMs, kUp)).build();
    LinkConfig downConfig = b.rateBitsPerSecond(down).queueLimitBytes(queue(down, rttMs, kDown)).build();
    String name = "random-" + seed;
    LinkProfile p = new LinkProfile(name, "", upConfig, downConfig);
    return new LinkProfile(name, "random link, seed " + seed + ": " + CustomLinks.format(p), upConfig, downConfig);
  }

  private static long queue(long rate, long rttMs, double k) {
    return Math.max(MIN_QUEUE_BYTES, Math.round(k * rate * rttMs / 8000.0));
  }

  private static double logUniform(SplittableRandom r, double lo, double hi) {
    return lo * Math.exp(r.nextDouble() * Math.log(hi / lo));
  }

  private static double uniform(SplittableRandom r, double lo, double hi) {
    return lo + r.nextDouble() * (hi - lo);
  }

  private static long step(double v, long step) {
    return Math.round(v / step) * step;
  }
}
