package dev.tern.bench.scenario;

/**
 * Mean IP packet delay variation over consecutive one-way delays, RFC 3393 §2.4 with the selection
 * function "consecutive packets" (§4.5): mean |D(i) - D(i-1)|. The delays here are application
 * one-way delays (server send stamp to client receipt), read on one host's monotonic clock.
 */
final class Ipdv {
  private long previousNs;
  private boolean first = true;
  private double sumAbsNs;
  private long count;

  /** Adds one one-way delay. */
  void add(long delayNs) {
    if (!first) {
      sumAbsNs += Math.abs(delayNs - previousNs);
      count++;
    }
    first = false;
    previousNs = delayNs;
  }

  /** Number of delay differences taken. */
  long count() {
    return count;
  }

  /** Mean absolute difference in nanoseconds (0 with fewer than two delays). */
  double meanAbsNs() {
    return count == 0 ? 0 : sumAbsNs / count;
  }
}
