package dev.tern.transport.udp.stream;

import java.util.ArrayDeque;

/**
 * Sends the most urgent ready stream first (urgency 0..7, RFC 9218 §4.1). Within one urgency,
 * incremental streams take turns frame by frame (RFC 9218 §4.2) and non-incremental ones go one
 * after another in the order they became ready. A newly ready urgent stream is chosen at the next
 * packet, ahead of any bulk data not yet sent; a stream's retransmissions stay with it and so keep
 * its urgency. Streams at or above {@code reservedUrgency} in importance may spend the whole
 * connection credit; others leave {@code urgentCreditReserveBytes} of it unspent, so a new urgent
 * call never waits for MAX_DATA behind bulk transfers.
 *
 * <p>Queues grow with the number of streams only; steady state allocates nothing.
 */
public final class PriorityScheduler implements SendScheduler {
  /** Levels 0..2 (more urgent than RFC 9218's default 3) may use the reserve by default. */
  public static final int DEFAULT_RESERVED_URGENCY = 2;
  /** Default reserve: 16 KiB, room for an urgent request or reply of typical size. */
  public static final long DEFAULT_URGENT_CREDIT_RESERVE_BYTES = 16 * 1024;

  private static final int LEVELS = 8;
  private final Level[] levels = new Level[LEVELS];
  private final int reservedUrgency;
  private final long urgentCreditReserveBytes;
  private int readyCount;

  /** A scheduler with the default reserve. */
  public PriorityScheduler() {
    this(DEFAULT_RESERVED_URGENCY, DEFAULT_URGENT_CREDIT_RESERVE_BYTES);
  }

  /**
   * A scheduler keeping {@code urgentCreditReserveBytes} of connection credit for streams of
   * urgency {@code reservedUrgency} or more urgent (lower).
   */
  public PriorityScheduler(int reservedUrgency, long urgentCreditReserveBytes) {
    if (reservedUrgency < -1 || reservedUrgency > 7) {
      throw new IllegalArgumentException("reservedUrgency must be -1..7, was " + reservedUrgency);
    }
    if (urgentCreditReserveBytes < 0) {
      throw new IllegalArgumentException(
          "urgentCreditReserveBytes must not be negative, was " + urgentCreditReserveBytes);
    }
    this.reservedUrgency = reservedUrgency;
    this.urgentCreditReserveBytes = urgentCreditReserveBytes;
    for (int i = 0; i < LEVELS; i++) {
      levels[i] = new Level();
    }
  }

  @Override
  public void markReady(Stream stream) {
    if (!stream.scheduled) {
      stream.scheduled = true;
      stream.scheduler = this;
      stream.scheduledUrgency = stream.urgency();
      levels[stream.scheduledUrgency].queue.addLast(stream);
      readyCount++;
    }
  }

  @Override
  public void remove(Stream stream) {
    if (stream.scheduled) {
      stream.scheduled = false;
      levels[stream.scheduledUrgency].queue.remove(stream);
      readyCount--;
    }
  }

  @Override
  public Stream next() {
    for (int u = 0; u < LEVELS && readyCount > 0; u++) {
      Stream s = levels[u].queue.peekFirst();
      if (s != null) {
        return s;
      }
    }
    return null;
  }

  @Override
  public void onPriorityChanged(Stream stream) {
    if (stream.scheduled && stream.scheduledUrgency != stream.urgency()) {
      // Refile behind the streams already waiting at the new urgency.
      levels[stream.scheduledUrgency].queue.remove(stream);
      stream.scheduledUrgency = stream.urgency();
      levels[stream.scheduledUrgency].queue.addLast(stream);
    }
  }

  @Override
  public void onEmitted(Stream stream, boolean stillReady) {
    if (!stream.scheduled) {
      return;
    }
    ArrayDeque<Stream> q = levels[stream.scheduledUrgency].queue;
    if (!stillReady) {
      remove(stream);
    } else if (stream.incremental() && q.peekFirst() == stream && q.size() > 1) {
      // RFC 9218 §4.2: incremental streams of one urgency share the link in turns.
      q.pollFirst();
      q.addLast(stream);
    }
  }

  @Override
  public boolean isEmpty() {
    return readyCount == 0;
  }

  @Override
  public long creditFor(Stream stream, long connectionCredit) {
    if (stream.urgency() <= reservedUrgency) {
      return connectionCredit;
    }
    return Math.max(0, connectionCredit - urgentCreditReserveBytes);
  }

  private static final class Level {
    final ArrayDeque<Stream> queue = new ArrayDeque<>();
  }
}
