package dev.tern.netlab.link;

/**
 * The FIFO bottleneck with its droptail queue. Departures are deterministic once a packet is
 * admitted (a fixed rate, or a trace's delivery opportunities as in mahimahi's link queue, where
 * a packet leaves at the opportunity that carries its last byte and several small packets may
 * share one opportunity), so the queue is tracked as a ring of the departure times of packets
 * not yet gone.
 */
final class Bottleneck {
  private final long rateBitsPerSecond;
  private final TraceSchedule trace;
  private final int limitPackets;
  private final long limitBytes;
  private final long epochNs;

  // Ring of packets admitted but not yet departed.
  private long[] departNs = new long[64];
  private int[] sizes = new int[64];
  private int head;
  private int count;
  private long queuedBytes;

  // Fixed rate: when the bottleneck is free again.
  private long freeAtNs;

  // Trace: the current opportunity (cycle, index) and the bytes it has left.
  private long cycle;
  private int index;
  private int bytesLeft;

  Bottleneck(LinkConfig cfg, long epochNs) {
    this.rateBitsPerSecond = cfg.rateBitsPerSecond();
    this.trace = cfg.trace();
    this.limitPackets = cfg.queueLimitPackets();
    this.limitBytes = cfg.queueLimitBytes();
    this.epochNs = epochNs;
    this.freeAtNs = epochNs;
    this.bytesLeft = trace == null ? 0 : TraceSchedule.OPPORTUNITY_BYTES;
  }

  /** Packets admitted and not yet departed at the time of the last {@link #admit} call. */
  int queuedPackets() {
    return count;
  }

  /** Bytes admitted and not yet departed at the time of the last {@link #admit} call. */
  long queuedBytes() {
    return queuedBytes;
  }

  /**
   * Admits a packet arriving at {@code nowNs}: returns its departure time, or -1 when the
   * droptail queue is full.
   */
  long admit(long nowNs, int sizeBytes) {
    while (count > 0 && departNs[head] <= nowNs) {
      queuedBytes -= sizes[head];
      head = (head + 1) & (departNs.length - 1);
      count--;
    }
    if (trace == null && rateBitsPerSecond == 0) {
      return nowNs;
    }
    if ((limitPackets > 0 && count >= limitPackets)
        || (limitBytes > 0 && queuedBytes + sizeBytes > limitBytes)) {
      return -1;
    }
    long depart = trace != null ? traceDeparture(nowNs, sizeBytes) : rateDeparture(nowNs, sizeBytes);
    push(depart, sizeBytes);
    return depart;
  }

  private long rateDeparture(long nowNs, int sizeBytes) {
    long start = Math.max(nowNs, freeAtNs);
    freeAtNs = start + sizeBytes * 8L * 1_000_000_000L / rateBitsPerSecond;
    return freeAtNs;
  }

  private long traceDeparture(long nowNs, int sizeBytes) {
    if (opportunityNs() < nowNs) {
      seek(nowNs); // opportunities that passed while the queue was empty are wasted
    }
    int remaining = sizeBytes;
    while (true) {
      int take = Math.min(remaining, bytesLeft);
      remaining -= take;
      bytesLeft -= take;
      if (remaining == 0) {
        long depart = opportunityNs();
        if (bytesLeft == 0) {
          next();
        }
        return depart;
      }
      next();
    }
  }

  private long opportunityNs() {
    return epochNs + (cycle * trace.periodMs() + trace.opportunityMs(index)) * 1_000_000L;
  }

  private void next() {
    index++;
    if (index == trace.size()) {
      index = 0;
      cycle++;
    }
    bytesLeft = TraceSchedule.OPPORTUNITY_BYTES;
  }

  private void seek(long nowNs) {
    long rel = Math.max(0, nowNs - epochNs);
    long periodNs = trace.periodMs() * 1_000_000L;
    cycle = rel / periodNs;
    long inPeriodNs = rel - cycle * periodNs;
    long ms = (inPeriodNs + 999_999L) / 1_000_000L; // first whole ms at or after now
    index = trace.firstAtOrAfter(ms);
    if (index == trace.size()) {
      index = 0;
      cycle++;
    }
    bytesLeft = TraceSchedule.OPPORTUNITY_BYTES;
  }

  private void push(long depart, int size) {
    if (count == departNs.length) {
      grow();
    }
    int tail = (head + count) & (departNs.length - 1);
    departNs[tail] = depart;
    sizes[tail] = size;
    count++;
    queuedBytes += size;
  }

  /** Doubles the ring; happens only while the queue reaches a new maximum. */
  private void grow() {
    int n = departNs.length;
    long[] d = new long[n * 2];
    int[] s = new int[n * 2];
    for (int i = 0; i < count; i++) {
      d[i] = departNs[(head + i) & (n - 1)];
      s[i] = sizes[(head + i) & (n - 1)];
    }
    departNs = d;
    sizes = s;
    head = 0;
  }
}
