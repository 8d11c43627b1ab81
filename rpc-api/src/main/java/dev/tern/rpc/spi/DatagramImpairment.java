package dev.tern.rpc.spi;

/**
 * A test-only description of how a datagram transport impairs its own UDP datagrams, in both
 * directions, on real sockets (the {@code quic} and {@code udp} transports take one as a transport
 * option, for tests that need real I/O under loss): each
 * datagram is dropped with probability {@code lossRate}, duplicated with {@code duplicateRate},
 * or held back and delivered after the next one with {@code reorderRate}; received datagrams may
 * also be delayed by a fixed time. Decisions come from a
 * {@link java.util.SplittableRandom} seeded with {@code seed}, so a run is repeatable as far as
 * the datagram sequence itself is.
 */
public final class DatagramImpairment {
  private final double lossRate;
  private final double duplicateRate;
  private final double reorderRate;
  private final long seed;
  private final long inboundDelayMillis;

  private DatagramImpairment(double lossRate, double duplicateRate, double reorderRate, long seed,
      long inboundDelayMillis) {
    this.lossRate = check("lossRate", lossRate);
    this.duplicateRate = check("duplicateRate", duplicateRate);
    this.reorderRate = check("reorderRate", reorderRate);
    this.seed = seed;
    if (inboundDelayMillis < 0) {
      throw new IllegalArgumentException("inboundDelayMillis must be >= 0, was " + inboundDelayMillis);
    }
    this.inboundDelayMillis = inboundDelayMillis;
  }

  /**
   * An impairment with the given probabilities (each in [0, 1)) and no delay.
   *
   * @param lossRate probability that a datagram is dropped, in [0, 1)
   * @param duplicateRate probability that a datagram is delivered twice, in [0, 1)
   * @param reorderRate probability that a datagram is held back behind the next one, in [0, 1)
   * @param seed the random generator's seed: the same seed makes the same decisions
   * @return the impairment
   * @throws IllegalArgumentException naming the rate that is out of range
   */
  public static DatagramImpairment of(double lossRate, double duplicateRate, double reorderRate, long seed) {
    return new DatagramImpairment(lossRate, duplicateRate, reorderRate, seed, 0);
  }

  /**
   * A copy that also holds every received datagram back by {@code millis} (one-way delay).
   *
   * @param millis the delay in milliseconds, 0 or more (0: none)
   * @return the copy
   * @throws IllegalArgumentException if {@code millis} is negative
   */
  public DatagramImpairment withInboundDelayMillis(long millis) {
    return new DatagramImpairment(lossRate, duplicateRate, reorderRate, seed, millis);
  }

  /**
   * Random loss only: no duplication, reordering or delay.
   *
   * @param lossRate probability that a datagram is dropped, in [0, 1)
   * @param seed the random generator's seed
   * @return the impairment
   * @throws IllegalArgumentException if {@code lossRate} is out of range
   */
  public static DatagramImpairment loss(double lossRate, long seed) {
    return of(lossRate, 0, 0, seed);
  }

  private static double check(String name, double v) {
    if (!(v >= 0 && v < 1)) {
      throw new IllegalArgumentException(name + " must be in [0, 1), was " + v);
    }
    return v;
  }

  /**
   * Probability that a datagram is dropped.
   *
   * @return the rate, in [0, 1)
   */
  public double lossRate() { return lossRate; }

  /**
   * Probability that a datagram is delivered twice.
   *
   * @return the rate, in [0, 1)
   */
  public double duplicateRate() { return duplicateRate; }

  /**
   * Probability that a datagram is held back behind the next one.
   *
   * @return the rate, in [0, 1)
   */
  public double reorderRate() { return reorderRate; }

  /**
   * The random generator's seed.
   *
   * @return the seed
   */
  public long seed() { return seed; }

  /**
   * How long each received datagram is held back.
   *
   * @return the delay in milliseconds, 0 for none
   */
  public long inboundDelayMillis() { return inboundDelayMillis; }

  @Override
  public String toString() {
    return "DatagramImpairment{loss=" + lossRate + ", dup=" + duplicateRate + ", reorder=" + reorderRate
        + ", seed=" + seed + ", inboundDelayMs=" + inboundDelayMillis + '}';
  }
}
