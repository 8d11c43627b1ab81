package dev.tern.netlab.emu;

/**
 * A snapshot of one emulated direction's counters.
 *
 * @param direction {@code c2s} or {@code s2c}
 * @param sentPackets IP packets that entered the link
 * @param sentBytes their bytes
 * @param deliveredPackets packets the link delivered (duplicates not counted)
 * @param droppedQueueFull drops by the droptail queue
 * @param droppedRandomLoss drops by random loss
 * @param droppedBurstLoss drops by the bursty channel
 * @param duplicated packets delivered twice
 * @param corrupted copies delivered with a flipped bit
 * @param reordered packets held back to be overtaken
 * @param blockedUdp UDP packets dropped before the link while UDP was blocked
 * @param written copies written to the egress TUN so far
 * @param overflow copies lost because the delay line was full or the packet too large
 * @param writeErrors copies the egress TUN refused
 * @param meanLateNs mean time by which copies were written after their delivery time (the
 *     emulator's own scheduling error)
 * @param maxLateNs the largest such error
 */
public record LinkCounters(String direction, long sentPackets, long sentBytes,
    long deliveredPackets, long droppedQueueFull, long droppedRandomLoss, long droppedBurstLoss,
    long duplicated, long corrupted, long reordered, long blockedUdp, long written, long overflow,
    long writeErrors, long meanLateNs, long maxLateNs) {}
