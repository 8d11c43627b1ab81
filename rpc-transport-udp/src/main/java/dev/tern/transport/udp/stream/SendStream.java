package dev.tern.transport.udp.stream;

import dev.tern.transport.udp.frame.StreamFrame;
import java.nio.ByteBuffer;

/**
 * The sending half of a stream (RFC 9000 §3.1): the application's bytes not yet acknowledged, in
 * a ring buffer bounded by {@code maxBufferBytes}; fresh data is sent in order, lost ranges are
 * re-queued in {@link #retransmit} and go before fresh data. Only what is in flight has a packet
 * number; everything else can still be withdrawn ({@link #reset}).
 */
public final class SendStream {
  /** FIN not requested yet. */
  static final int FIN_NONE = 0;
  /** FIN requested, to be sent (or re-sent after loss). */
  static final int FIN_PENDING = 1;
  /** FIN sent, awaiting acknowledgement. */
  static final int FIN_SENT = 2;
  /** FIN acknowledged. */
  static final int FIN_ACKED = 3;

  /** The smallest ring: a unary call's message fits, and a bulk stream doubles from it. */
  static final int MIN_BUFFER_BYTES = 512;
  /** A recycled stream keeps its ring up to this size (larger ones are dropped). */
  static final int MAX_RETAINED_BYTES = 8 * 1024;
  private static final byte[] EMPTY = new byte[0];

  private final int maxBufferBytes;
  private byte[] buf = EMPTY;
  private long bufStart; // offset of the oldest retained byte (everything below is acked)
  private long writeOffset; // end of the application's data
  private long sendOffset; // next fresh byte
  private long maxStreamData; // the peer's credit for this stream
  private long blockedReportedAt = -1;
  private final RangeSet retransmit = new RangeSet();
  private final RangeSet acked = new RangeSet();
  private int finState = FIN_NONE;
  private long finalSize = -1;
  private boolean resetRequested;
  private long resetCode;
  private int resetState; // 0 none, 1 pending, 2 sent, 3 acked

  SendStream(int maxBufferBytes, long initialMaxStreamData) {
    this.maxBufferBytes = maxBufferBytes;
    this.maxStreamData = initialMaxStreamData;
  }

  /** Bytes the application may still write before the buffer is full. */
  public int writableBytes() {
    if (finState != FIN_NONE || resetRequested) {
      return 0;
    }
    return (int) (maxBufferBytes - (writeOffset - bufStart));
  }

  /** Copies as much of {@code src} as fits; returns the number of bytes taken. */
  int write(ByteBuffer src) {
    int n = Math.min(src.remaining(), writableBytes());
    if (n <= 0) {
      return 0;
    }
    ensureCapacity((int) (writeOffset - bufStart) + n);
    int mask = buf.length - 1;
    for (int k = 0; k < n; ) {
      int idx = (int) ((writeOffset + k) & mask);
      int chunk = Math.min(n - k, buf.length - idx);
      src.get(buf, idx, chunk);
      k += chunk;
    }
    writeOffset += n;
    return n;
  }

  private void ensureCapacity(int needed) {
    if (needed <= buf.length) {
      return;
    }
    int cap = Math.max(MIN_BUFFER_BYTES, buf.length);
    while (cap < needed) {
      cap *= 2;
    }
    byte[] next = new byte[cap];
    int oldMask = buf.length - 1;
    for (long o = bufStart; o < writeOffset; o++) {
      next[(int) (o & (cap - 1))] = buf[(int) (o & oldMask)];
    }
    buf = next;
  }

  /**
   * Returns the half to the state of a new stream with the peer's initial credit
   * {@code initialMaxStreamData}, keeping its ring (if small) and range sets for reuse: a
   * recycled stream costs no allocation.
   */
  void recycle(long initialMaxStreamData) {
    if (buf.length > MAX_RETAINED_BYTES) {
      buf = EMPTY;
    }
    bufStart = 0;
    writeOffset = 0;
    sendOffset = 0;
    maxStreamData = initialMaxStreamData;
    blockedReportedAt = -1;
    retransmit.clear();
    acked.clear();
    finState = FIN_NONE;
    finalSize = -1;
    resetRequested = false;
    resetCode = 0;
    resetState = 0;
  }

  /** The application will write no more: the stream ends after what was written. */
  void finish() {
    if (finState == FIN_NONE && !resetRequested) {
      finState = FIN_PENDING;
      finalSize = writeOffset;
    }
  }

  /** Abandons the stream: unsent data is dropped at once and RESET_STREAM is to be sent. */
  void reset(long applicationErrorCode) {
    if (resetRequested || finState == FIN_ACKED) {
      return;
    }
    resetRequested = true;
    resetCode = applicationErrorCode;
    resetState = 1;
    retransmit.clear();
    writeOffset = Math.max(sendOffset, bufStart);
  }

  /** Whether a frame can be sent now given {@code connectionCredit} bytes of connection credit. */
  boolean hasSendable(long connectionCredit) {
    if (resetRequested) {
      return false;
    }
    if (!retransmit.isEmpty()) {
      return true;
    }
    if (sendOffset < writeOffset && sendOffset < maxStreamData && connectionCredit > 0) {
      return true;
    }
    return finState == FIN_PENDING && sendOffset == finalSize;
  }

  /** Whether fresh data waits only for this stream's credit (STREAM_DATA_BLOCKED is due). */
  boolean blockedByStreamCredit() {
    return !resetRequested && sendOffset < writeOffset && sendOffset >= maxStreamData
        && blockedReportedAt != maxStreamData;
  }

  /** Records that STREAM_DATA_BLOCKED was sent for the current limit. */
  void onBlockedReported() {
    blockedReportedAt = maxStreamData;
  }

  /** The peer's limit for this stream. */
  public long maxStreamData() {
    return maxStreamData;
  }

  /** Raises the peer's credit (MAX_STREAM_DATA); lower values are ignored (RFC 9000 §4.1). */
  void onMaxStreamData(long max) {
    maxStreamData = Math.max(maxStreamData, max);
  }

  /**
   * Writes one STREAM frame of at most {@code maxFrameBytes} into {@code out}: lost data first,
   * then fresh data within the credits. Fills {@code result}; returns false if nothing fit.
   */
  boolean emit(long streamId, ByteBuffer out, int maxFrameBytes, long connectionCredit,
      EmittedFrame result) {
    long offset;
    long end;
    boolean fresh;
    if (!retransmit.isEmpty()) {
      offset = retransmit.start(0);
      end = retransmit.end(0);
      fresh = false;
    } else {
      offset = sendOffset;
      end = Math.min(writeOffset, Math.min(maxStreamData, sendOffset + connectionCredit));
      fresh = true;
    }
    int header = StreamFrame.headerLength(streamId, offset, maxFrameBytes);
    int room = maxFrameBytes - header;
    if (room < 0 || (room == 0 && end > offset)) {
      return false;
    }
    int len = (int) Math.min(end - offset, room);
    boolean fin = finalSize >= 0 && offset + len == finalSize
        && (finState == FIN_PENDING || (finState == FIN_SENT && !fresh));
    if (len == 0 && !fin) {
      return false;
    }
    StreamFrame.encodeHeader(out, streamId, offset, len, fin);
    int mask = buf.length - 1;
    for (int k = 0; k < len; ) {
      int idx = (int) ((offset + k) & mask);
      int chunk = Math.min(len - k, buf.length - idx);
      out.put(buf, idx, chunk);
      k += chunk;
    }
    if (fresh) {
      sendOffset += len;
    } else {
      retransmit.remove(offset, offset + len);
    }
    if (fin) {
      finState = FIN_SENT;
    }
    result.set(offset, len, fin, fresh ? len : 0);
    return true;
  }

  /** A STREAM frame of this stream was acknowledged. */
  void onAcked(long offset, int length, boolean fin) {
    if (fin && finState == FIN_SENT) {
      finState = FIN_ACKED;
    }
    if (length == 0) {
      return;
    }
    acked.add(offset, offset + length);
    retransmit.remove(offset, offset + length);
    long contiguous = acked.contiguousEnd(bufStart);
    if (contiguous > bufStart) {
      bufStart = contiguous;
      acked.removeBelow(bufStart);
    }
  }

  /** A STREAM frame of this stream was lost: re-queue what is not acknowledged since. */
  void onLost(long offset, int length, boolean fin) {
    if (resetRequested) {
      return;
    }
    if (fin && finState == FIN_SENT) {
      finState = FIN_PENDING;
    }
    long start = Math.max(offset, bufStart);
    long end = offset + length;
    if (start >= end) {
      return;
    }
    if (retransmit.isFull()) {
      return; // cannot happen with our own packets: lost ranges coalesce per packet
    }
    retransmit.add(start, end);
    for (int i = 0; i < acked.size() && acked.start(i) < end; i++) {
      retransmit.remove(acked.start(i), acked.end(i));
    }
  }

  /** Whether lost data of this stream waits to be sent again. */
  boolean hasRetransmission() {
    return !resetRequested && !retransmit.isEmpty();
  }

  /** Whether RESET_STREAM is to be sent. */
  boolean resetPending() {
    return resetState == 1;
  }

  /** RESET_STREAM's error code. */
  long resetCode() {
    return resetCode;
  }

  /** RESET_STREAM's final size: the highest offset ever sent. */
  long resetFinalSize() {
    return sendOffset;
  }

  /** RESET_STREAM was sent ({@code true}), acknowledged, or lost (back to pending). */
  void onResetSent() {
    resetState = 2;
  }

  void onResetAcked() {
    resetState = 3;
  }

  void onResetLost() {
    if (resetState == 2) {
      resetState = 1;
    }
  }

  /** Whether the application reset this half. */
  public boolean isReset() {
    return resetRequested;
  }

  /** Whether this half is finished: everything (with FIN) acknowledged, or its reset. */
  boolean isTerminal() {
    return resetState == 3 || (finState == FIN_ACKED && bufStart == finalSize);
  }

  /** Bytes written by the application so far. */
  public long writeOffset() {
    return writeOffset;
  }

  /** Bytes acknowledged contiguously from the start. */
  public long ackedOffset() {
    return bufStart;
  }
}
