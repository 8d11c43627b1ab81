package dev.tern.netlab.link;

/**
 * Jitter as a smooth wander of the one-way delay within [-jitter/2, +jitter/2]: random points
 * every interval, joined by straight lines. A pure function of (seed, time), so it evolves with
 * time and not with traffic.
 */
final class DelayWander {
  private final long seed;
  private final long jitterNs;
  private final long intervalNs;
  private final long epochNs;

  DelayWander(LinkConfig cfg, long seed, long epochNs) {
    this.seed = seed;
    this.jitterNs = cfg.jitterNs();
    this.intervalNs = cfg.jitterIntervalNs();
    this.epochNs = epochNs;
  }

  /** Offset to add to the mean delay at {@code nowNs}. */
  long offsetNs(long nowNs) {
    if (jitterNs == 0) {
      return 0;
    }
    long t = Math.max(0, nowNs - epochNs);
    long k = t / intervalNs;
    double frac = (t - k * intervalNs) / (double) intervalNs;
    double a = Mix.unit(seed, k) - 0.5;
    double b = Mix.unit(seed, k + 1) - 0.5;
    return Math.round((a + (b - a) * frac) * jitterNs);
  }
}
