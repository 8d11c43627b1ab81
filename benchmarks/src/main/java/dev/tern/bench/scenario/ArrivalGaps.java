package dev.tern.bench.scenario;

/**
 * The longest gap between consecutive arrivals of a download, and between the last arrival and the
 * end of the wait when the download did not finish: how long the receiver saw no bytes. Not
 * thread-safe; the caller synchronises.
 */
final class ArrivalGaps {
  private long lastNs = Long.MIN_VALUE;
  private long longestNs;

  /** Records one arrival at {@code nowNs}. */
  void arrival(long nowNs) {
    if (lastNs != Long.MIN_VALUE) {
      longestNs = Math.max(longestNs, nowNs - lastNs);
    }
    lastNs = nowNs;
  }

  /** The longest gap so far, counting an unfinished tail up to {@code endNs} when {@code finished} is false. */
  long longestNs(long endNs, boolean finished) {
    if (finished || lastNs == Long.MIN_VALUE) {
      return longestNs;
    }
    return Math.max(longestNs, endNs - lastNs);
  }

  /** Whether anything arrived. */
  boolean any() {
    return lastNs != Long.MIN_VALUE;
  }

  /** Time of the last arrival; meaningless if {@link #any()} is false. */
  long lastNs() {
    return lastNs;
  }
}
