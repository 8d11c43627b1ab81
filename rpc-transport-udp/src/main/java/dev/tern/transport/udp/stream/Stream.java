package dev.tern.transport.udp.stream;

/**
 * A bidirectional stream: one RPC (docs/protocol.md §6). Holds both halves and the scheduling
 * attributes a {@link SendScheduler} may use. After {@link StreamListener#onClosed} the object is
 * reused for a later stream (with another ID), so that a call allocates no stream objects.
 */
public final class Stream {
  private long id;
  private final SendStream send;
  private final ReceiveStream receive;
  private int urgency = 3;
  private boolean incremental;
  /** Set and read only by {@link SendScheduler} implementations. */
  boolean scheduled;
  /** The urgency level a {@link SendScheduler} filed the stream under. */
  int scheduledUrgency;
  /** The scheduler that last queued the stream, told when its priority changes. */
  SendScheduler scheduler;
  boolean controlQueued;
  boolean notifyQueued;
  long countedConsumed;
  /** Whether any of the peer's data for this stream came in a 0-RTT packet. */
  private boolean receivedInEarlyData;

  Stream(long id, int sendBufferBytes, long peerInitialMaxStreamData, int receiveWindowBytes) {
    this.id = id;
    this.send = new SendStream(sendBufferBytes, peerInitialMaxStreamData);
    this.receive = new ReceiveStream(receiveWindowBytes);
  }

  /**
   * Makes this closed stream a new one with {@code newId}, both halves as new (its buffers are
   * kept): the stream set reuses closed streams so that a call allocates no stream objects.
   */
  void recycle(long newId, long peerInitialMaxStreamData) {
    id = newId;
    urgency = 3;
    incremental = false;
    scheduled = false;
    scheduledUrgency = 0;
    scheduler = null;
    controlQueued = false;
    notifyQueued = false;
    countedConsumed = 0;
    receivedInEarlyData = false;
    send.recycle(peerInitialMaxStreamData);
    receive.recycle();
  }

  /** Whether nothing still refers to this stream: no scheduler or queue holds it. */
  boolean isDetached() {
    return !scheduled && !controlQueued && !notifyQueued;
  }

  /** The stream ID (RFC 9000 §2.1). */
  public long id() {
    return id;
  }

  /** The sending half. */
  public SendStream send() {
    return send;
  }

  /** The receiving half. */
  public ReceiveStream receive() {
    return receive;
  }

  /** Urgency 0 (most urgent) to 7, in the spirit of RFC 9218; default 3. */
  public int urgency() {
    return urgency;
  }

  /** Whether the stream's data may be interleaved with others of the same urgency. */
  public boolean incremental() {
    return incremental;
  }

  /** Sets the priority; schedulers read it when choosing the next stream. */
  public void setPriority(int urgency, boolean incremental) {
    if (urgency < 0 || urgency > 7) {
      throw new IllegalArgumentException("urgency must be 0..7: " + urgency);
    }
    this.urgency = urgency;
    this.incremental = incremental;
    if (scheduled && scheduler != null) {
      scheduler.onPriorityChanged(this);
    }
  }

  /**
   * Whether any of the peer's STREAM frames for this stream (data or its end) arrived in a
   * 0-RTT packet (RFC 9001 §4.6.1), which an attacker who recorded it may replay (RFC 8446 §8):
   * the call layer refuses a method that is not idempotent when this is true. Set by the stream
   * set ({@link StreamSet#receivingEarlyData}) and never cleared while the stream lives.
   */
  public boolean receivedInEarlyData() {
    return receivedInEarlyData;
  }

  void markReceivedInEarlyData() {
    receivedInEarlyData = true;
  }

  /** Whether both halves are finished and the stream's state can be dropped. */
  public boolean isTerminal() {
    return send.isTerminal() && receive.isTerminal();
  }

  @Override
  public String toString() {
    return "Stream[" + id + "]";
  }
}
