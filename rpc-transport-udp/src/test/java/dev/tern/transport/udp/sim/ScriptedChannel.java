package dev.tern.transport.udp.sim;

import java.nio.ByteBuffer;

/**
 * A deterministic channel for targeted tests: fixed one-way delay, a FIFO bottleneck of fixed
 * rate, and a caller-supplied rule that drops chosen datagrams (by content or index).
 */
public final class ScriptedChannel implements Channel {
  /** Chooses datagrams to drop. */
  @FunctionalInterface
  public interface DropRule {
    /** Whether the {@code index}-th datagram (from 0), with these bytes, is dropped. */
    boolean drop(long index, ByteBuffer datagram);
  }

  private final long delayNs;
  private final long rateBitsPerSecond;
  private final DropRule rule;
  private long busyUntilNs;
  private long index;

  /**
   * A channel.
   *
   * @param rateBitsPerSecond 0 for unlimited
   */
  public ScriptedChannel(long delayNs, long rateBitsPerSecond, DropRule rule) {
    this.delayNs = delayNs;
    this.rateBitsPerSecond = rateBitsPerSecond;
    this.rule = rule;
  }

  /** Serialisation time of {@code bytes} at this channel's rate. */
  public long serialisationNs(int bytes) {
    return rateBitsPerSecond == 0 ? 0 : bytes * 8L * 1_000_000_000L / rateBitsPerSecond;
  }

  @Override
  public int transmit(long nowNs, ByteBuffer datagram, long[] deliverAtNs, boolean[] corrupt) {
    long i = index++;
    long start = Math.max(nowNs, busyUntilNs);
    long done = start + serialisationNs(datagram.remaining() + LinkChannel.IP_UDP_OVERHEAD);
    busyUntilNs = done;
    if (rule != null && rule.drop(i, datagram.duplicate())) {
      return 0;
    }
    deliverAtNs[0] = done + delayNs;
    corrupt[0] = false;
    return 1;
  }
}
