package dev.tern.transport.udp.stream;

import dev.tern.transport.udp.frame.TransportError;
import java.nio.ByteBuffer;

/**
 * The receiving half of a stream (RFC 9000 §3.2): reassembles out-of-order data in a ring buffer
 * no larger than the flow-control window it advertises, so memory is bounded by what the peer
 * may send; delivers bytes in order the moment they are contiguous; announces more credit as
 * soon as half of the window has been read (RFC 9000 §4.2), so a clean link never stalls.
 */
public final class ReceiveStream {
  private final int windowBytes;
  private static final int MIN_BUFFER_BYTES = SendStream.MIN_BUFFER_BYTES;
  private static final byte[] EMPTY = new byte[0];

  private byte[] buf = EMPTY;
  private long highestBuffered; // end of the highest byte stored in buf
  private long readOffset;
  private long maxAdvertised;
  private long highestReceived;
  private long finalSize = -1;
  private final RangeSet received = new RangeSet();
  private boolean creditUpdatePending;
  private boolean resetReceived;
  private long resetCode;
  private boolean stopRequested;
  private long stopCode;
  private int stopState; // 0 none, 1 pending, 2 sent
  private boolean finDelivered;

  ReceiveStream(int windowBytes) {
    this.windowBytes = windowBytes;
    this.maxAdvertised = windowBytes;
  }

  /**
   * Returns the half to the state of a new stream, keeping its ring (if small) and range set for
   * reuse: a recycled stream costs no allocation.
   */
  void recycle() {
    if (buf.length > SendStream.MAX_RETAINED_BYTES) {
      buf = EMPTY;
    }
    highestBuffered = 0;
    readOffset = 0;
    maxAdvertised = windowBytes;
    highestReceived = 0;
    finalSize = -1;
    received.clear();
    creditUpdatePending = false;
    resetReceived = false;
    resetCode = 0;
    stopRequested = false;
    stopCode = 0;
    stopState = 0;
    finDelivered = false;
  }

  /**
   * Takes a STREAM frame's data (a slice of {@code src}).
   *
   * @return null if accepted (or harmlessly ignored), else the connection error it causes
   */
  TransportError onData(long offset, ByteBuffer src, int srcOffset, int length, boolean fin) {
    long end = offset + length;
    // RFC 9000 §4.5: the final size may not change, and no data may lie beyond it.
    if (finalSize >= 0 && (end > finalSize || (fin && end != finalSize))) {
      return TransportError.FINAL_SIZE_ERROR;
    }
    if (fin && end < highestReceived) {
      return TransportError.FINAL_SIZE_ERROR;
    }
    if (end > maxAdvertised) {
      return TransportError.FLOW_CONTROL_ERROR; // RFC 9000 §4.1
    }
    if (fin) {
      finalSize = end;
    }
    highestReceived = Math.max(highestReceived, end);
    if (resetReceived || stopRequested) {
      return null;
    }
    long start = Math.max(offset, readOffset);
    if (start >= end || received.contains(start, end)) {
      return null;
    }
    if (received.isFull()) {
      return null; // dropped: the peer retransmits it, and our memory stays bounded
    }
    ensureBuffer(end);
    int mask = buf.length - 1;
    for (long o = start; o < end; ) {
      int idx = (int) (o & mask);
      int chunk = (int) Math.min(end - o, buf.length - idx);
      int from = srcOffset + (int) (o - offset);
      for (int k = 0; k < chunk; k++) {
        buf[idx + k] = src.get(from + k);
      }
      o += chunk;
    }
    received.add(start, end);
    highestBuffered = Math.max(highestBuffered, end);
    return null;
  }

  /**
   * Grows the ring so that {@code [readOffset, end)} fits: from 512 bytes, doubling, never beyond the
   * window. Memory follows what the peer actually sent, not what it may send, so many streams
   * with a byte each cost little.
   */
  private void ensureBuffer(long end) {
    long needed = end - readOffset;
    if (needed <= buf.length) {
      return;
    }
    int cap = Math.max(buf.length, MIN_BUFFER_BYTES);
    while (cap < needed) {
      cap *= 2;
    }
    byte[] next = new byte[cap];
    if (buf.length > 0) {
      int oldMask = buf.length - 1;
      long copyEnd = Math.min(highestBuffered, readOffset + buf.length);
      for (long o = readOffset; o < copyEnd; o++) {
        next[(int) (o & (cap - 1))] = buf[(int) (o & oldMask)];
      }
    }
    buf = next;
  }

  /** Bytes that can be read now, in order. */
  public long readableBytes() {
    if (resetReceived) {
      return 0;
    }
    return received.contiguousEnd(readOffset) - readOffset;
  }

  /**
   * Copies up to {@code dst.remaining()} in-order bytes into {@code dst}.
   *
   * @return bytes copied
   */
  int read(ByteBuffer dst) {
    int n = (int) Math.min(dst.remaining(), readableBytes());
    if (n <= 0) {
      return 0;
    }
    int mask = buf.length - 1;
    for (int k = 0; k < n; ) {
      int idx = (int) ((readOffset + k) & mask);
      int chunk = Math.min(n - k, buf.length - idx);
      dst.put(buf, idx, chunk);
      k += chunk;
    }
    readOffset += n;
    received.removeBelow(readOffset);
    // RFC 9000 §4.2: announce credit early, once half of the window is consumed.
    if (maxAdvertised - readOffset <= windowBytes / 2 && finalSize < 0) {
      creditUpdatePending = true;
    }
    return n;
  }

  /** Whether the application has read everything up to the final size. */
  public boolean isFinished() {
    return finalSize >= 0 && readOffset == finalSize;
  }

  /** Marks that the application was told of the end of the stream. */
  void onFinDelivered() {
    finDelivered = true;
  }

  /** Bytes the application has read. */
  long readOffsetForAccounting() {
    return readOffset;
  }

  /** Whether the application asked the peer to stop sending. */
  boolean isStopped() {
    return stopRequested;
  }

  /** Whether the end of stream (or the reset) was delivered to the application. */
  boolean finDelivered() {
    return finDelivered;
  }

  /** Whether a MAX_STREAM_DATA is due. */
  boolean creditUpdatePending() {
    return creditUpdatePending && !resetReceived && !stopRequested;
  }

  /** Produces the new limit for MAX_STREAM_DATA and clears the pending flag. */
  long takeCreditUpdate() {
    creditUpdatePending = false;
    maxAdvertised = readOffset + windowBytes;
    return maxAdvertised;
  }

  /** Re-arms MAX_STREAM_DATA after its packet was lost. */
  void onCreditUpdateLost() {
    if (finalSize < 0) {
      creditUpdatePending = true;
    }
  }

  /** The current advertised limit. */
  public long maxAdvertised() {
    return maxAdvertised;
  }

  /** The highest offset received (counts toward connection flow control). */
  long highestReceived() {
    return highestReceived;
  }

  /** Takes a RESET_STREAM; returns the connection error it causes, or null. */
  TransportError onReset(long code, long size) {
    if ((finalSize >= 0 && size != finalSize) || size < highestReceived) {
      return TransportError.FINAL_SIZE_ERROR;
    }
    if (size > maxAdvertised) {
      return TransportError.FLOW_CONTROL_ERROR;
    }
    finalSize = size;
    highestReceived = size;
    if (!resetReceived) {
      resetReceived = true;
      resetCode = code;
      received.clear();
      buf = EMPTY;
    }
    return null;
  }

  /** Whether the peer reset the stream. */
  public boolean isReset() {
    return resetReceived;
  }

  /** The peer's reset error code. */
  public long resetCode() {
    return resetCode;
  }

  /** The application no longer wants data: STOP_SENDING is to be sent. */
  void stopSending(long code) {
    if (!stopRequested && !resetReceived && !isFinished()) {
      stopRequested = true;
      stopCode = code;
      stopState = 1;
      received.clear();
      buf = EMPTY;
    }
  }

  boolean stopPending() {
    return stopState == 1;
  }

  long stopCode() {
    return stopCode;
  }

  void onStopSent() {
    stopState = 2;
  }

  void onStopLost() {
    if (stopState == 2 && !resetReceived && !isFinished()) {
      stopState = 1;
    }
  }

  /** Whether this half is finished: fin or reset delivered to the application. */
  boolean isTerminal() {
    return finDelivered || (stopRequested && (resetReceived || finalSize >= 0));
  }
}
