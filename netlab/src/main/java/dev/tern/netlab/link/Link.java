package dev.tern.netlab.link;

import java.util.SplittableRandom;

/**
 * One direction of an emulated link (see {@link LinkConfig} for the stages a packet crosses).
 *
 * <p>Single-threaded and clock-free: the caller passes the time of every packet, in virtual time
 * (a simulator) or real time (an emulator), and times must not go backwards. The channel's
 * time-driven processes (trace position, Gilbert-Elliott bursts, delay wander) start at the
 * epoch, so two runs with the same seed and epoch meet the same channel whatever their
 * traffic. Per-packet decisions (random loss, reordering, duplication, corruption) each draw
 * from their own seeded stream. {@link #send} allocates nothing in steady state.
 */
public final class Link {
  private static final long SALT_LOSS = 1;
  private static final long SALT_BURST = 2;
  private static final long SALT_JITTER = 3;
  private static final long SALT_REORDER = 4;
  private static final long SALT_DUPLICATE = 5;
  private static final long SALT_CORRUPT = 6;

  private final LinkConfig cfg;
  private final long seed;
  private boolean started;
  private long epochNs;
  private Bottleneck bottleneck;
  private GilbertElliott burst;
  private DelayWander wander;
  private SplittableRandom lossRng;
  private SplittableRandom reorderRng;
  private SplittableRandom duplicateRng;
  private SplittableRandom corruptRng;
  private long lastInOrderNs = Long.MIN_VALUE;

  private long sentPackets;
  private long sentBytes;
  private long deliveredPackets;
  private long deliveredBytes;
  private long droppedQueueFull;
  private long droppedRandomLoss;
  private long droppedBurstLoss;
  private long duplicated;
  private long corrupted;
  private long reordered;

  /**
   * A link whose epoch is the time of its first packet (or of {@link #start}).
   *
   * @param cfg the direction's configuration
   * @param seed seeds every random process of the link
   */
  public Link(LinkConfig cfg, long seed) {
    if (cfg == null) {
      throw new IllegalArgumentException("cfg must not be null");
    }
    this.cfg = cfg;
    this.seed = seed;
  }

  /**
   * A link whose time-driven processes start at {@code epochNs}.
   *
   * @param cfg the direction's configuration
   * @param seed seeds every random process of the link
   * @param epochNs the time at which the trace, bursts and wander start
   */
  public Link(LinkConfig cfg, long seed, long epochNs) {
    this(cfg, seed);
    start(epochNs);
  }

  /**
   * Fixes the epoch at which the channel's time-driven processes start; called implicitly by the
   * first {@link #send}.
   *
   * @throws IllegalStateException when already started
   */
  public void start(long epochNs) {
    if (started) {
      throw new IllegalStateException("link already started at " + this.epochNs);
    }
    started = true;
    this.epochNs = epochNs;
    bottleneck = new Bottleneck(cfg, epochNs);
    burst = cfg.burstLossRate() > 0
        ? new GilbertElliott(cfg, Mix.stream(seed, SALT_BURST), epochNs) : null;
    wander = new DelayWander(cfg, Mix.stream(seed, SALT_JITTER), epochNs);
    lossRng = new SplittableRandom(Mix.stream(seed, SALT_LOSS));
    reorderRng = new SplittableRandom(Mix.stream(seed, SALT_REORDER));
    duplicateRng = new SplittableRandom(Mix.stream(seed, SALT_DUPLICATE));
    corruptRng = new SplittableRandom(Mix.stream(seed, SALT_CORRUPT));
  }

  /**
   * Offers one packet to the link.
   *
   * @param nowNs the time the packet enters the link (not before the previous call's)
   * @param sizeBytes its size on the wire (the IP packet, or the datagram for a UDP simulator)
   * @param out filled with the verdict; reused by the caller
   * @return the number of copies delivered: 0 (dropped, see {@link Delivery#dropReason()}),
   *     1, or 2 (duplicated)
   */
  public int send(long nowNs, int sizeBytes, Delivery out) {
    if (sizeBytes <= 0 || sizeBytes > 65535) {
      throw new IllegalArgumentException("sizeBytes must be in [1, 65535], got " + sizeBytes);
    }
    if (!started) {
      start(nowNs);
    }
    out.reset();
    sentPackets++;
    sentBytes += sizeBytes;
    long departNs = bottleneck.admit(nowNs, sizeBytes);
    if (departNs < 0) {
      droppedQueueFull++;
      out.drop(DropReason.QUEUE_FULL);
      return 0;
    }
    if (burst != null && burst.isBadAt(departNs)) {
      droppedBurstLoss++;
      out.drop(DropReason.BURST_LOSS);
      return 0;
    }
    if (cfg.lossProbability() > 0 && lossRng.nextDouble() < cfg.lossProbability()) {
      droppedRandomLoss++;
      out.drop(DropReason.RANDOM_LOSS);
      return 0;
    }
    long deliverNs = Math.max(departNs,
        departNs + cfg.propagationDelayNs() + wander.offsetNs(departNs));
    if (cfg.reorderProbability() > 0 && reorderRng.nextDouble() < cfg.reorderProbability()) {
      // Held back and exempt from the in-order rule: packets sent after it may overtake it.
      deliverNs += cfg.reorderExtraDelayNs();
      reordered++;
      out.markReordered();
    } else {
      if (deliverNs < lastInOrderNs) {
        deliverNs = lastInOrderNs;
      }
      lastInOrderNs = deliverNs;
    }
    deliveredPackets++;
    deliveredBytes += sizeBytes;
    out.deliver(0, deliverNs, corrupt());
    if (cfg.duplicateProbability() > 0 && duplicateRng.nextDouble() < cfg.duplicateProbability()) {
      duplicated++;
      out.deliver(1, deliverNs, corrupt());
      return 2;
    }
    return 1;
  }

  private boolean corrupt() {
    if (cfg.corruptProbability() > 0 && corruptRng.nextDouble() < cfg.corruptProbability()) {
      corrupted++;
      return true;
    }
    return false;
  }

  /** The configuration. */
  public LinkConfig config() {
    return cfg;
  }

  /** The seed. */
  public long seed() {
    return seed;
  }

  /** The epoch, once started. */
  public long epochNs() {
    return epochNs;
  }

  /** Ideal one-way time of a lone packet: mean propagation plus serialisation at the mean rate. */
  public long idealOneWayNs(int sizeBytes) {
    return cfg.idealOneWayNs(sizeBytes);
  }

  /** Mean bottleneck rate in bit/s (0 = unlimited). */
  public long meanRateBitsPerSecond() {
    return cfg.meanRateBitsPerSecond();
  }

  /** Packets waiting in or being served by the bottleneck, as of the last {@link #send}. */
  public int queuedPackets() {
    return bottleneck == null ? 0 : bottleneck.queuedPackets();
  }

  /** Packets offered. */
  public long sentPackets() {
    return sentPackets;
  }

  /** Bytes offered. */
  public long sentBytes() {
    return sentBytes;
  }

  /** Packets delivered (at least one copy), duplicates not counted. */
  public long deliveredPackets() {
    return deliveredPackets;
  }

  /** Bytes of delivered packets, duplicates not counted. */
  public long deliveredBytes() {
    return deliveredBytes;
  }

  /** Packets dropped by a full queue. */
  public long droppedQueueFull() {
    return droppedQueueFull;
  }

  /** Packets dropped by random loss. */
  public long droppedRandomLoss() {
    return droppedRandomLoss;
  }

  /** Packets dropped by the bursty channel. */
  public long droppedBurstLoss() {
    return droppedBurstLoss;
  }

  /** Packets dropped for any reason. */
  public long droppedPackets() {
    return droppedQueueFull + droppedRandomLoss + droppedBurstLoss;
  }

  /** Packets delivered twice. */
  public long duplicated() {
    return duplicated;
  }

  /** Copies delivered corrupted. */
  public long corrupted() {
    return corrupted;
  }

  /** Packets held back to be overtaken. */
  public long reordered() {
    return reordered;
  }

  @Override
  public String toString() {
    return "Link{" + cfg + ", sent=" + sentPackets + ", delivered=" + deliveredPackets
        + ", queueFull=" + droppedQueueFull + ", randomLoss=" + droppedRandomLoss
        + ", burstLoss=" + droppedBurstLoss + ", duplicated=" + duplicated
        + ", corrupted=" + corrupted + ", reordered=" + reordered + "}";
  }
}
