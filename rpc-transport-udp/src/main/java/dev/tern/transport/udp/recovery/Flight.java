package dev.tern.transport.udp.recovery;

/**
 * What the packet-number spaces of one connection share in loss recovery (RFC 9002 §A.2,
 * §A.3): bytes in flight and the probe-timeout backoff ({@code pto_count}) are connection-wide,
 * and the congestion controller numbers packets in one sending sequence across the spaces,
 * because each space numbers its own packets from 0 (RFC 9000 §12.3).
 */
public final class Flight {
  long bytesInFlight;
  int ptoCount;
  private long nextSequence;
  /** Told of the packets any space declares lost; {@link LossListener#NONE} until set. */
  LossListener lossListener = LossListener.NONE;
  /** Told of every packet sent, received and lost; {@link EventLog#NONE} until a driver sets one. */
  EventLog eventLog = EventLog.NONE;

  /** The connection's event log (a driver's qlog file), or {@link EventLog#NONE}. */
  public EventLog eventLog() {
    return eventLog;
  }

  /** Sets the connection's event log; on its thread. */
  public void setEventLog(EventLog log) {
    eventLog = log == null ? EventLog.NONE : log;
  }

  /** Bytes in flight over every space (RFC 9002 §2). */
  public long bytesInFlight() {
    return bytesInFlight;
  }

  /** Consecutive probe timeouts without an acknowledgement in any space (RFC 9002 §6.2.1). */
  public int ptoCount() {
    return ptoCount;
  }

  /**
   * Forgets the probe backoff (RFC 9002 §6.2.1): the peer showed a new address, and the probes
   * that went unanswered were sent to the one it left.
   */
  public void resetProbeBackoff() {
    ptoCount = 0;
  }

  /**
   * Sets who hears of the packets every space of the connection declares lost (a driver counting
   * retransmissions); null: nobody.
   */
  public void setLossListener(LossListener listener) {
    this.lossListener = listener == null ? LossListener.NONE : listener;
  }

  /** The number the next packet sent will get in the connection-wide sending sequence. */
  public long nextSequence() {
    return nextSequence;
  }

  /** The next number of the connection-wide sending sequence; each call takes one. */
  long takeSequence() {
    return nextSequence++;
  }
}
