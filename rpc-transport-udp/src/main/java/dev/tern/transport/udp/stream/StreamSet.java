package dev.tern.transport.udp.stream;

import dev.tern.transport.udp.util.LongObjectMap;
import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.frame.TransportError;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A connection's streams: creation within MAX_STREAMS (RFC 9000 §4.6), connection-level flow
 * control (§4.1), incoming STREAM / RESET_STREAM / STOP_SENDING / credit frames, and the queues
 * of what is to be sent. Frame writing lives in {@link StreamFrameWriter}.
 */
public final class StreamSet {
  private final boolean isClient;
  private final StreamLimits local;
  private final StreamListener listener;
  final SendScheduler scheduler;
  private final LongObjectMap<Stream> streams = new LongObjectMap<>();
  final ArrayDeque<Stream> controlQueue = new ArrayDeque<>();
  private final ArrayDeque<Stream> notifyQueue = new ArrayDeque<>();
  /** Closed streams kept for reuse (at most {@link #POOL_SIZE}). */
  private final ArrayDeque<Stream> pool = new ArrayDeque<>();
  /** How many closed streams are kept for reuse. */
  static final int POOL_SIZE = 16;

  // Peer parameters.
  private long peerInitialMaxStreamData;
  private long peerMaxStreams;
  long peerMaxData;
  long freshBytesSent;
  long dataBlockedReportedAt = -1;
  // Our own limits as advertised.
  private long nextLocalIndex;
  private long nextPeerIndex;
  private long peerStreamsClosed;
  long maxStreamsAdvertised;
  boolean maxStreamsPending;
  long maxDataAdvertised;
  boolean maxDataPending;
  private long receivedTotal;
  private long consumedTotal;

  /** A stream set for one side; {@code scheduler} picks the order of stream data. */
  public StreamSet(boolean isClient, StreamLimits local, SendScheduler scheduler,
      StreamListener listener) {
    this.isClient = isClient;
    this.local = local;
    this.scheduler = scheduler;
    this.listener = listener;
    this.maxStreamsAdvertised = local.maxStreams;
    this.maxDataAdvertised = local.connectionWindowBytes;
  }

  /** Applies the peer's transport parameters (its limits on what we send). */
  public void setPeerLimits(long initialMaxData, long initialMaxStreamData,
      long initialMaxStreams) {
    peerMaxData = Math.max(peerMaxData, initialMaxData);
    peerInitialMaxStreamData = initialMaxStreamData;
    peerMaxStreams = Math.max(peerMaxStreams, initialMaxStreams);
  }

  /**
   * Raises the send limit of every open local stream to {@code initialMaxStreamData} where it is
   * lower: a resuming client opened them under the limits it remembered, capped at the early-data
   * limit (RFC 9000 §7.4.1), and the server's ServerHello now states its current ones.
   */
  public void raiseLocalStreamLimits(long initialMaxStreamData) {
    for (int i = 0; i < streams.capacity(); i++) {
      Stream s = streams.slot(i);
      if (s != null && isLocal(s.id(), isClient)) {
        s.send().onMaxStreamData(initialMaxStreamData);
        markSendable(s);
      }
    }
  }

  /** Stream bytes sent for the first time so far, over all streams. */
  public long freshBytesSent() {
    return freshBytesSent;
  }

  /** New stream bytes received so far, over all streams (the connection's flow control). */
  public long receivedTotal() {
    return receivedTotal;
  }

  /** Number of live streams. */
  public int size() {
    return streams.size();
  }

  /** Whether any stream has lost data waiting to be sent again (a scan: not per packet). */
  public boolean anyRetransmission() {
    for (int i = 0; i < streams.capacity(); i++) {
      Stream s = streams.slot(i);
      if (s != null && s.send().hasRetransmission()) {
        return true;
      }
    }
    return false;
  }

  /** The stream with {@code id}, or null if it is not open. */
  public Stream get(long id) {
    return streams.get(id);
  }

  /** Connection-level credit left for fresh data. */
  public long connectionCredit() {
    return Math.max(0, peerMaxData - freshBytesSent);
  }

  /** Whether another local stream may be opened now (the peer's MAX_STREAMS). */
  public boolean canOpen() {
    return nextLocalIndex < peerMaxStreams;
  }

  /** Opens a local bidirectional stream, or returns null if the peer's limit is reached. */
  public Stream open() {
    if (!canOpen()) {
      return null;
    }
    long id = (nextLocalIndex++ << 2) | (isClient ? 0 : 1);
    return create(id);
  }

  private Stream create(long id) {
    Stream s = pool.pollFirst();
    // A stream closed while a queue still held it is not reused (the queue would see it again).
    while (s != null && !s.isDetached()) {
      s = pool.pollFirst();
    }
    if (s != null) {
      s.recycle(id, peerInitialMaxStreamData);
    } else {
      s = new Stream(id, local.sendBufferBytes, peerInitialMaxStreamData,
          local.streamWindowBytes);
    }
    streams.put(id, s);
    return s;
  }

  private static boolean isLocal(long id, boolean isClient) {
    return ((id & 1) == 0) == isClient;
  }

  /**
   * Finds the stream a received frame names, opening peer streams on first sight (RFC 9000 §3.2:
   * lower-numbered ones open too).
   *
   * @param error receives the connection error, if any, at index 0
   * @return the stream, or null if the frame is to be ignored (closed stream) or an error occurred
   */
  private Stream lookup(long id, TransportError[] error) {
    Stream s = streams.get(id);
    if (s != null) {
      return s;
    }
    if ((id & 2) != 0) {
      error[0] = TransportError.STREAM_STATE_ERROR; // version 1 has no unidirectional streams
      return null;
    }
    long index = id >>> 2;
    if (isLocal(id, isClient)) {
      if (index >= nextLocalIndex) {
        error[0] = TransportError.STREAM_STATE_ERROR; // a stream we never opened
      }
      return null;
    }
    if (index < nextPeerIndex) {
      return null; // already closed
    }
    if (index >= maxStreamsAdvertised) {
      error[0] = TransportError.STREAM_LIMIT_ERROR;
      return null;
    }
    Stream last = null;
    for (long i = nextPeerIndex; i <= index; i++) {
      last = create((i << 2) | (isClient ? 1 : 0));
      listener.onStreamOpened(last);
    }
    nextPeerIndex = index + 1;
    return last;
  }

  private final TransportError[] errorSlot = new TransportError[1];

  /**
   * Whether the frames now being handed to this set came in a 0-RTT packet (RFC 9001 §4.6.1):
   * each stream a STREAM frame names then records it
   * ({@link Stream#receivedInEarlyData}). The connection sets it per packet from the packet's
   * type.
   */
  public void receivingEarlyData(boolean early) {
    this.receivingEarlyData = early;
  }

  private boolean receivingEarlyData;

  /** A STREAM frame arrived; returns the connection error it causes, or null. */
  public TransportError onStreamFrame(StreamFrame f) {
    errorSlot[0] = null;
    Stream s = lookup(f.streamId, errorSlot);
    if (s == null) {
      return errorSlot[0];
    }
    if (receivingEarlyData) {
      s.markReceivedInEarlyData();
    }
    ReceiveStream r = s.receive();
    long before = r.highestReceived();
    TransportError e = r.onData(f.offset, f.source, f.dataOffset, f.length, f.fin);
    if (e != null) {
      return e;
    }
    return afterReceive(s, before);
  }

  private TransportError afterReceive(Stream s, long highestBefore) {
    ReceiveStream r = s.receive();
    receivedTotal += r.highestReceived() - highestBefore;
    if (receivedTotal > maxDataAdvertised) {
      return TransportError.FLOW_CONTROL_ERROR; // RFC 9000 §4.1
    }
    boolean notify = r.readableBytes() > 0 || r.isFinished() || r.isReset();
    if (notify) {
      queueNotify(s);
    }
    accountConsumed(s);
    if (!notify) {
      // A half the application stopped (RFC 9000 §3.5) is over once its final size is known:
      // nothing is left to read, so no read or notification would close the stream later.
      closeIfTerminal(s);
    }
    return null;
  }

  /** A RESET_STREAM arrived; returns the connection error it causes, or null. */
  public TransportError onResetStream(ResetStreamFrame f) {
    errorSlot[0] = null;
    Stream s = lookup(f.streamId, errorSlot);
    if (s == null) {
      return errorSlot[0];
    }
    ReceiveStream r = s.receive();
    boolean wasReset = r.isReset();
    long before = r.highestReceived();
    TransportError e = r.onReset(f.applicationErrorCode, f.finalSize);
    if (e != null) {
      return e;
    }
    if (!wasReset) {
      listener.onReset(s, f.applicationErrorCode);
      // RFC 9000 §3.2: once the application has the reset's signal, the receiving part is in
      // "Reset Read", a terminal state; it need not read the stream to get there.
      r.onFinDelivered();
    }
    return afterReceive(s, before);
  }

  /** A STOP_SENDING arrived: reset our sending half (RFC 9000 §3.5). */
  public TransportError onStopSending(long id, long code) {
    errorSlot[0] = null;
    Stream s = lookup(id, errorSlot);
    if (s == null) {
      return errorSlot[0];
    }
    if (!s.send().isReset()) {
      listener.onStopSending(s, code);
      reset(s, code);
    }
    return null;
  }

  /** MAX_DATA arrived. */
  public void onMaxData(long max) {
    if (max > peerMaxData) {
      peerMaxData = max;
      markAllSendable();
    }
  }

  /** MAX_STREAM_DATA arrived; returns the connection error it causes, or null. */
  public TransportError onMaxStreamData(long id, long max) {
    errorSlot[0] = null;
    Stream s = lookup(id, errorSlot);
    if (s != null) {
      s.send().onMaxStreamData(max);
      markSendable(s);
    }
    return errorSlot[0];
  }

  /** MAX_STREAMS arrived. */
  public void onMaxStreams(long max) {
    peerMaxStreams = Math.max(peerMaxStreams, max);
  }

  private void markAllSendable() {
    for (int i = 0; i < streams.capacity(); i++) {
      Stream s = streams.slot(i);
      if (s != null) {
        markSendable(s);
      }
    }
  }

  /** Tells the scheduler {@code s} has something to send, if it has. */
  void markSendable(Stream s) {
    if (s.send().hasSendable(connectionCredit())) {
      scheduler.markReady(s);
    }
    if (s.send().resetPending() || s.receive().stopPending() || s.receive().creditUpdatePending()
        || s.send().blockedByStreamCredit()) {
      queueControl(s);
    }
  }

  void queueControl(Stream s) {
    if (!s.controlQueued && streams.get(s.id()) == s) {
      s.controlQueued = true;
      controlQueue.addLast(s);
    }
  }

  private void queueNotify(Stream s) {
    if (!s.notifyQueued) {
      s.notifyQueued = true;
      notifyQueue.addLast(s);
    }
  }

  /** Tells the listener about streams that became readable; called after each datagram. */
  public void deliverNotifications() {
    Stream s;
    while ((s = notifyQueue.pollFirst()) != null) {
      s.notifyQueued = false;
      listener.onReadable(s);
      closeIfTerminal(s);
    }
  }

  // ---- application side -------------------------------------------------------------------

  /** Writes application bytes to {@code s}; returns how many were taken. */
  public int write(Stream s, ByteBuffer src) {
    int n = s.send().write(src);
    if (n > 0) {
      markSendable(s);
    }
    return n;
  }

  /** Ends {@code s}'s sending half after what was written. */
  public void finish(Stream s) {
    s.send().finish();
    markSendable(s);
  }

  /** Resets {@code s}'s sending half: unsent data is dropped now, the peer is told. */
  public void reset(Stream s, long code) {
    s.send().reset(code);
    scheduler.remove(s);
    queueControl(s);
  }

  /** Asks the peer to stop sending on {@code s}; data received from now on is discarded. */
  public void stopSending(Stream s, long code) {
    s.receive().stopSending(code);
    accountConsumed(s);
    queueControl(s);
    closeIfTerminal(s);
  }

  /** Reads in-order bytes of {@code s} into {@code dst}; returns how many. */
  public int read(Stream s, ByteBuffer dst) {
    ReceiveStream r = s.receive();
    int n = r.read(dst);
    if (n > 0) {
      accountConsumed(s);
      if (r.creditUpdatePending()) {
        queueControl(s);
      }
    }
    if (r.isFinished() || r.isReset()) {
      r.onFinDelivered();
      closeIfTerminal(s);
    }
    return n;
  }

  /**
   * Counts what the application consumed (or what was discarded) of {@code s} against the
   * connection window, and announces more connection credit once half is used.
   */
  private void accountConsumed(Stream s) {
    ReceiveStream r = s.receive();
    long mark = r.isReset() || r.isStopped()
        ? r.highestReceived() : r.readOffsetForAccounting();
    if (mark > s.countedConsumed) {
      consumedTotal += mark - s.countedConsumed;
      s.countedConsumed = mark;
    }
    // RFC 9000 §4.2: update early, when half the connection window is consumed.
    if (maxDataAdvertised - consumedTotal <= local.connectionWindowBytes / 2) {
      maxDataPending = true;
    }
  }

  /** Produces the new MAX_DATA value and clears the pending flag. */
  long takeMaxData() {
    maxDataPending = false;
    maxDataAdvertised = consumedTotal + local.connectionWindowBytes;
    return maxDataAdvertised;
  }

  /** Drops {@code s} if both halves are finished; frees a stream slot for the peer. */
  void closeIfTerminal(Stream s) {
    if (!s.isTerminal() || streams.get(s.id()) != s) {
      return;
    }
    streams.remove(s.id());
    scheduler.remove(s);
    if (s.controlQueued) {
      s.controlQueued = false;
      controlQueue.remove(s);
    }
    if (!isLocal(s.id(), isClient)) {
      peerStreamsClosed++;
      // RFC 9000 §4.6: raise the limit once half of the slots were freed.
      if (maxStreamsAdvertised - peerStreamsClosed <= local.maxStreams / 2) {
        maxStreamsAdvertised = peerStreamsClosed + local.maxStreams;
        maxStreamsPending = true;
      }
    }
    listener.onClosed(s);
    // The application must not use a stream after onClosed: it is reused for a later stream.
    if (pool.size() < POOL_SIZE) {
      pool.addLast(s);
    }
  }

  /** Whether every stream is closed and nothing stream-related is queued. */
  public boolean isIdle() {
    return streams.size() == 0 && controlQueue.isEmpty() && scheduler.isEmpty();
  }
}
