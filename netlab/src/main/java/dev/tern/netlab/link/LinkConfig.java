package dev.tern.netlab.link;

/**
 * One direction of an emulated link: immutable; build with {@link #builder()}.
 *
 * <p>A packet crosses the stages in this order:
 * <ol>
 *   <li><b>Bottleneck</b>: a FIFO with a droptail queue, served either at a fixed rate
 *       ({@link Builder#rateBitsPerSecond}) or by the delivery opportunities of a mahimahi trace
 *       ({@link Builder#trace}); without either it has no rate limit and no queue. The queue holds
 *       every packet that has not fully left the bottleneck (the one being serialised included);
 *       a packet arriving at a full queue is dropped ({@link DropReason#QUEUE_FULL}).</li>
 *   <li><b>Channel loss</b>, decided at the instant the packet leaves the bottleneck: the
 *       Gilbert-Elliott bursty channel ({@link DropReason#BURST_LOSS}) then independent random
 *       loss ({@link DropReason#RANDOM_LOSS}). A lost packet has used its share of the
 *       bottleneck.</li>
 *   <li><b>Propagation</b> plus <b>jitter</b>: the one-way delay wanders smoothly within
 *       [delay - jitter/2, delay + jitter/2], so its mean is the configured delay. The wander is a
 *       function of time only (piecewise linear between random values drawn every jitter
 *       interval, by default twice the jitter, which bounds its slope to 1/2), so packets keep
 *       their order and arrive bunched while the delay falls.</li>
 *   <li><b>Reordering</b>: with the given probability a packet gets extra delay and is exempt
 *       from the in-order rule, so later packets overtake it.</li>
 *   <li><b>Duplication</b> (a second copy at the same time) and <b>corruption</b> (per copy).</li>
 * </ol>
 *
 * <p>Gilbert-Elliott model (E. N. Gilbert, "Capacity of a burst-noise channel", 1960; E. O.
 * Elliott, 1963): the simple two-state Gilbert channel (every packet lost in the bad
 * state, none in the good state; random loss is configured separately), specified by its mean
 * loss rate {@code L} and mean burst length {@code B} in packets. The state evolves with TIME,
 * not with the packet count: it is a discrete Markov chain over fixed slots of one MTU's
 * serialisation time at the link's (mean) rate ({@link Builder#burstSlotNs} overrides it; 1 ms
 * when the rate is unlimited). Per slot, P(bad to good) = 1/B and P(good to bad) = L/(B(1-L)),
 * so a sender at line rate (one packet per slot) sees bursts of B packets on average and a
 * loss rate L; a slower sender sees the same fraction of time lost but shorter bursts. Sojourn
 * times are drawn as geometric variates, so an idle link costs nothing to advance.
 */
public final class LinkConfig {
  private final long propagationDelayNs;
  private final long jitterNs;
  private final long jitterIntervalNs;
  private final long rateBitsPerSecond;
  private final TraceSchedule trace;
  private final int queueLimitPackets;
  private final long queueLimitBytes;
  private final double lossProbability;
  private final double burstLossRate;
  private final double meanBurstPackets;
  private final long burstSlotNs;
  private final double reorderProbability;
  private final long reorderExtraDelayNs;
  private final double duplicateProbability;
  private final double corruptProbability;
  private final int mtuBytes;
  private final long jitterIntervalSetNs;
  private final long burstSlotSetNs;

  private LinkConfig(Builder b) {
    this.jitterIntervalSetNs = b.jitterIntervalNs;
    this.burstSlotSetNs = b.burstSlotNs;
    this.propagationDelayNs = b.propagationDelayNs;
    this.jitterNs = b.jitterNs;
    this.jitterIntervalNs = b.jitterIntervalNs > 0 ? b.jitterIntervalNs : Math.max(2 * b.jitterNs, 1_000_000L);
    this.rateBitsPerSecond = b.rateBitsPerSecond;
    this.trace = b.trace;
    this.queueLimitPackets = b.queueLimitPackets;
    this.queueLimitBytes = b.queueLimitBytes;
    this.lossProbability = b.lossProbability;
    this.burstLossRate = b.burstLossRate;
    this.meanBurstPackets = b.meanBurstPackets;
    this.mtuBytes = b.mtuBytes;
    long mean = b.trace != null ? b.trace.meanRateBitsPerSecond() : b.rateBitsPerSecond;
    this.burstSlotNs = b.burstSlotNs > 0 ? b.burstSlotNs
        : mean > 0 ? Math.max(1, b.mtuBytes * 8L * 1_000_000_000L / mean) : 1_000_000L;
    this.reorderProbability = b.reorderProbability;
    this.reorderExtraDelayNs = b.reorderExtraDelayNs;
    this.duplicateProbability = b.duplicateProbability;
    this.corruptProbability = b.corruptProbability;
  }

  /** A new builder: no delay, no rate limit, no impairment. */
  public static Builder builder() {
    return new Builder();
  }

  /** A perfect link: no delay, no rate limit, no impairment. */
  public static LinkConfig unlimited() {
    return builder().build();
  }

  /** A builder initialised from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.propagationDelayNs = propagationDelayNs;
    b.jitterNs = jitterNs;
    b.jitterIntervalNs = jitterIntervalSetNs;
    b.rateBitsPerSecond = rateBitsPerSecond;
    b.trace = trace;
    b.queueLimitPackets = queueLimitPackets;
    b.queueLimitBytes = queueLimitBytes;
    b.lossProbability = lossProbability;
    b.burstLossRate = burstLossRate;
    b.meanBurstPackets = meanBurstPackets;
    b.burstSlotNs = burstSlotSetNs;
    b.reorderProbability = reorderProbability;
    b.reorderExtraDelayNs = reorderExtraDelayNs;
    b.duplicateProbability = duplicateProbability;
    b.corruptProbability = corruptProbability;
    b.mtuBytes = mtuBytes;
    return b;
  }

  /** Mean one-way propagation delay. */
  public long propagationDelayNs() {
    return propagationDelayNs;
  }

  /** Peak-to-peak range of the delay wander (0 = none). */
  public long jitterNs() {
    return jitterNs;
  }

  /** Interval between the wander's random points. */
  public long jitterIntervalNs() {
    return jitterIntervalNs;
  }

  /** Fixed bottleneck rate, 0 when unlimited or trace-driven. */
  public long rateBitsPerSecond() {
    return rateBitsPerSecond;
  }

  /** The trace driving the bottleneck, or null. */
  public TraceSchedule trace() {
    return trace;
  }

  /** Mean bottleneck rate: the fixed rate, the trace's mean, or 0 when unlimited. */
  public long meanRateBitsPerSecond() {
    return trace != null ? trace.meanRateBitsPerSecond() : rateBitsPerSecond;
  }

  /** Droptail limit in packets (0 = no packet limit). */
  public int queueLimitPackets() {
    return queueLimitPackets;
  }

  /** Droptail limit in bytes (0 = no byte limit). */
  public long queueLimitBytes() {
    return queueLimitBytes;
  }

  /** Independent per-packet loss probability. */
  public double lossProbability() {
    return lossProbability;
  }

  /** Gilbert-Elliott mean loss rate (0 = no bursty loss). */
  public double burstLossRate() {
    return burstLossRate;
  }

  /** Gilbert-Elliott mean burst length in packets at line rate. */
  public double meanBurstPackets() {
    return meanBurstPackets;
  }

  /** Gilbert-Elliott time slot. */
  public long burstSlotNs() {
    return burstSlotNs;
  }

  /** Probability that a packet is held back and overtaken. */
  public double reorderProbability() {
    return reorderProbability;
  }

  /** Extra delay of a reordered packet. */
  public long reorderExtraDelayNs() {
    return reorderExtraDelayNs;
  }

  /** Probability that a packet is delivered twice. */
  public double duplicateProbability() {
    return duplicateProbability;
  }

  /** Probability that a delivered copy is corrupted. */
  public double corruptProbability() {
    return corruptProbability;
  }

  /** MTU used for the burst slot. */
  public int mtuBytes() {
    return mtuBytes;
  }

  /** Serialisation time of {@code sizeBytes} at the mean rate (0 when unlimited). */
  public long serialisationNs(int sizeBytes) {
    long rate = meanRateBitsPerSecond();
    return rate == 0 ? 0 : sizeBytes * 8L * 1_000_000_000L / rate;
  }

  /** Ideal one-way time of a lone packet: mean propagation plus serialisation at the mean rate. */
  public long idealOneWayNs(int sizeBytes) {
    return propagationDelayNs + serialisationNs(sizeBytes);
  }

  /**
   * Every setting in words, derived values included (trace period and mean, burst slot, wander
   * interval, the queue in time at the mean rate): what a run is about to cross.
   */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    long mean = meanRateBitsPerSecond();
    if (trace != null) {
      sb.append(String.format(java.util.Locale.ROOT, "trace %s (%d opportunities per %d ms period, mean %.3f Mbit/s)",
          trace.source(), trace.size(), trace.periodMs(), mean / 1e6));
    } else if (rateBitsPerSecond > 0) {
      sb.append(String.format(java.util.Locale.ROOT, "rate %s Mbit/s", plain(rateBitsPerSecond / 1e6)));
    } else {
      sb.append("rate unlimited");
    }
    sb.append("; delay ").append(plain(propagationDelayNs / 1e6)).append(" ms");
    sb.append(", jitter ").append(plain(jitterNs / 1e6)).append(" ms peak-to-peak");
    if (jitterNs > 0) {
      sb.append(" (wander points every ").append(plain(jitterIntervalNs / 1e6)).append(" ms)");
    }
    if (burstLossRate > 0) {
      sb.append("; loss Gilbert-Elliott ").append(percent(burstLossRate)).append(" in bursts of ")
          .append(plain(meanBurstPackets)).append(" packets (slot ").append(plain(burstSlotNs / 1e6)).append(" ms)")
          .append(" + random ").append(percent(lossProbability));
    } else {
      sb.append("; loss random ").append(percent(lossProbability));
    }
    sb.append("; reordering ").append(percent(reorderProbability));
    if (reorderProbability > 0) {
      sb.append(" (+").append(plain(reorderExtraDelayNs / 1e6)).append(" ms)");
    }
    sb.append("; duplication ").append(percent(duplicateProbability));
    sb.append("; corruption ").append(percent(corruptProbability));
    sb.append("; queue ");
    if (queueLimitBytes == 0 && queueLimitPackets == 0) {
      sb.append("unlimited");
    } else {
      if (queueLimitBytes > 0) {
        sb.append(queueLimitBytes).append(" bytes");
        if (mean > 0) {
          sb.append(" (").append(plain(Math.round(queueLimitBytes * 8e4 / mean) / 10.0)).append(" ms at the mean rate)");
        }
      }
      if (queueLimitPackets > 0) {
        sb.append(queueLimitBytes > 0 ? " and " : "").append(queueLimitPackets).append(" packets");
      }
      sb.append(" droptail");
    }
    return sb.append("; MTU ").append(mtuBytes).toString();
  }

  private static String percent(double p) {
    return new java.math.BigDecimal(Double.toString(p)).movePointRight(2).stripTrailingZeros().toPlainString() + "%";
  }

  private static String plain(double v) {
    return new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("LinkConfig{delay=").append(propagationDelayNs / 1e6).append("ms");
    if (jitterNs > 0) sb.append(", jitter=").append(jitterNs / 1e6).append("ms");
    if (trace != null) sb.append(", trace=").append(trace.name());
    if (rateBitsPerSecond > 0) sb.append(", rate=").append(rateBitsPerSecond).append("bit/s");
    if (queueLimitPackets > 0) sb.append(", queue=").append(queueLimitPackets).append("pkt");
    if (queueLimitBytes > 0) sb.append(", queue=").append(queueLimitBytes).append("B");
    if (lossProbability > 0) sb.append(", loss=").append(lossProbability);
    if (burstLossRate > 0) sb.append(", burstLoss=").append(burstLossRate).append("/").append(meanBurstPackets);
    if (reorderProbability > 0) sb.append(", reorder=").append(reorderProbability);
    if (duplicateProbability > 0) sb.append(", duplicate=").append(duplicateProbability);
    if (corruptProbability > 0) sb.append(", corrupt=").append(corruptProbability);
    return sb.append('}').toString();
  }

  /** Builds a {@link LinkConfig}; every setter checks its argument and names it in the error. */
  public static final class Builder {
    private long propagationDelayNs;
    private long jitterNs;
    private long jitterIntervalNs;
    private long rateBitsPerSecond;
    private TraceSchedule trace;
    private int queueLimitPackets;
    private long queueLimitBytes;
    private double lossProbability;
    private double burstLossRate;
    private double meanBurstPackets = 1;
    private long burstSlotNs;
    private double reorderProbability;
    private long reorderExtraDelayNs = 20_000_000L;
    private double duplicateProbability;
    private double corruptProbability;
    private int mtuBytes = 1500;

    private Builder() {}

    /** Mean one-way propagation delay in nanoseconds. */
    public Builder delayNs(long ns) {
      propagationDelayNs = nonNegative("delayNs", ns);
      return this;
    }

    /** Mean one-way propagation delay in milliseconds. */
    public Builder delayMs(double ms) {
      return delayNs(msToNs("delayMs", ms));
    }

    /** Peak-to-peak delay wander in milliseconds (must not exceed twice the delay). */
    public Builder jitterMs(double ms) {
      jitterNs = msToNs("jitterMs", ms);
      return this;
    }

    /** Interval between the wander's random points in milliseconds (default 2 x jitter). */
    public Builder jitterIntervalMs(double ms) {
      jitterIntervalNs = msToNs("jitterIntervalMs", ms);
      return this;
    }

    /** Fixed bottleneck rate in bit/s; 0 = unlimited. Clears any trace. */
    public Builder rateBitsPerSecond(long bitsPerSecond) {
      rateBitsPerSecond = nonNegative("rateBitsPerSecond", bitsPerSecond);
      trace = null;
      return this;
    }

    /** Fixed bottleneck rate in Mbit/s; 0 = unlimited. Clears any trace. */
    public Builder rateMbitPerSecond(double mbit) {
      if (!(mbit >= 0) || Double.isInfinite(mbit)) {
        throw new IllegalArgumentException("rateMbitPerSecond must be >= 0, got " + mbit);
      }
      return rateBitsPerSecond(Math.round(mbit * 1e6));
    }

    /** Drives the bottleneck by a mahimahi trace instead of a fixed rate. */
    public Builder trace(TraceSchedule schedule) {
      if (schedule == null) {
        throw new IllegalArgumentException("trace must not be null");
      }
      trace = schedule;
      rateBitsPerSecond = 0;
      return this;
    }

    /** Droptail limit in packets; 0 = none. */
    public Builder queueLimitPackets(int packets) {
      queueLimitPackets = (int) nonNegative("queueLimitPackets", packets);
      return this;
    }

    /** Droptail limit in bytes; 0 = none. */
    public Builder queueLimitBytes(long bytes) {
      queueLimitBytes = nonNegative("queueLimitBytes", bytes);
      return this;
    }

    /** Independent per-packet loss probability in [0, 1]. */
    public Builder loss(double probability) {
      lossProbability = probability("loss", probability);
      return this;
    }

    /**
     * Gilbert-Elliott bursty loss.
     *
     * @param meanLossRate long-run fraction lost, in [0, 1)
     * @param meanBurstLengthPackets mean burst length at line rate, at least 1
     */
    public Builder burstLoss(double meanLossRate, double meanBurstLengthPackets) {
      double l = probability("burstLoss.meanLossRate", meanLossRate);
      if (l >= 1) {
        throw new IllegalArgumentException("burstLoss.meanLossRate must be < 1, got " + meanLossRate);
      }
      if (!(meanBurstLengthPackets >= 1) || Double.isInfinite(meanBurstLengthPackets)) {
        throw new IllegalArgumentException(
            "burstLoss.meanBurstLengthPackets must be >= 1, got " + meanBurstLengthPackets);
      }
      burstLossRate = l;
      meanBurstPackets = meanBurstLengthPackets;
      return this;
    }

    /** Overrides the Gilbert-Elliott time slot (default: one MTU's serialisation time). */
    public Builder burstSlotNs(long ns) {
      burstSlotNs = nonNegative("burstSlotNs", ns);
      return this;
    }

    /** Reordering: probability and the extra delay of a held-back packet in milliseconds. */
    public Builder reorder(double probability, double extraDelayMs) {
      reorderProbability = probability("reorder.probability", probability);
      reorderExtraDelayNs = msToNs("reorder.extraDelayMs", extraDelayMs);
      return this;
    }

    /** Probability that a packet is delivered twice. */
    public Builder duplicate(double probability) {
      duplicateProbability = probability("duplicate", probability);
      return this;
    }

    /** Probability that a delivered copy is corrupted. */
    public Builder corrupt(double probability) {
      corruptProbability = probability("corrupt", probability);
      return this;
    }

    /** MTU for the Gilbert-Elliott slot (default 1500). */
    public Builder mtuBytes(int bytes) {
      if (bytes < 68 || bytes > 65535) {
        throw new IllegalArgumentException("mtuBytes must be in [68, 65535], got " + bytes);
      }
      mtuBytes = bytes;
      return this;
    }

    /** Builds the configuration. */
    public LinkConfig build() {
      if (jitterNs > 2 * propagationDelayNs) {
        throw new IllegalArgumentException("jitterMs (" + jitterNs / 1e6
            + ") must not exceed twice the delay (" + propagationDelayNs / 1e6 + " ms)");
      }
      return new LinkConfig(this);
    }

    private static long nonNegative(String name, long v) {
      if (v < 0) {
        throw new IllegalArgumentException(name + " must be >= 0, got " + v);
      }
      return v;
    }

    private static long msToNs(String name, double ms) {
      if (!(ms >= 0) || ms > 1e9) {
        throw new IllegalArgumentException(name + " must be in [0, 1e9], got " + ms);
      }
      return Math.round(ms * 1e6);
    }

    private static double probability(String name, double p) {
      if (!(p >= 0 && p <= 1)) {
        throw new IllegalArgumentException(name + " must be a probability in [0, 1], got " + p);
      }
      return p;
    }
  }
}
