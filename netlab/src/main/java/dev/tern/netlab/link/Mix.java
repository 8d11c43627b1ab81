package dev.tern.netlab.link;

/** Stateless hashing used to make time-driven processes a pure function of (seed, time slot). */
final class Mix {
  private Mix() {}

  /** The SplitMix64 finaliser (Steele, Lea, Flood 2014): a well-spread 64-bit hash. */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** A uniform double in [0, 1) derived from {@code seed} and {@code index}. */
  static double unit(long seed, long index) {
    return (mix64(seed + index * 0x9e3779b97f4a7c15L) >>> 11) * 0x1.0p-53;
  }

  /** Derives an independent seed for one random process of a link. */
  static long stream(long seed, long salt) {
    return mix64(seed ^ mix64(salt));
  }
}
