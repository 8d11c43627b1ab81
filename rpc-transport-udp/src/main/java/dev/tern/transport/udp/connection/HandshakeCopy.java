package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.util.Buffers;
import java.nio.ByteBuffer;

/**
 * The second copy of an endpoint's first handshake datagram (docs/protocol.md §4.1): the same
 * bytes, packet number included, sent once a few milliseconds after the original, so that one
 * loss (or a short burst) on the path does not cost the 999 ms first probe timeout of a
 * connection without an RTT sample (RFC 9002 §6.2.2). The receiver discards whichever copy
 * arrives second as a duplicate packet number (RFC 9000 §12.3), so the copy is not a packet of
 * its own: it is not in the sent-packet log, in bytes in flight or in the congestion window.
 * It is dropped unsent once the peer has shown it has the handshake message. One copy per
 * connection, of the first flight only; its buffer is allocated once, on the handshake path.
 *
 * <p>Likewise, if enabled, the first 1-RTT datagram that carries stream data (the first request,
 * the first response) is sent twice (§4.1): until more RTT samples come in, the estimate rests
 * on the handshake's one sample (RFC 9002 §5.3: rttvar = sample / 2), so a lost first request or
 * response waits for a tail-loss probe of 2 SRTT plus max_ack_delay, the slowest recovery of
 * the connection's life. That copy is dropped unsent once its packet is acknowledged or
 * declared lost.
 */
final class HandshakeCopy {
  private final long delayNs;
  private final boolean firstData;
  private byte[] bytes;
  private int length;
  private long dueNs = Long.MAX_VALUE;
  private boolean captured;
  private boolean dataCaptured;
  private long dataPn = -1;

  /**
   * Copies sent {@code delayNs} after the original; a negative delay disables them.
   *
   * @param firstData whether the first datagram with stream data is copied too
   */
  HandshakeCopy(long delayNs, boolean firstData) {
    this.delayNs = delayNs;
    this.firstData = firstData;
  }

  /**
   * Takes a copy of the 1-RTT datagram just written to {@code out} from {@code start} (packet
   * {@code pn}), if it is the first to carry stream data, copies are enabled and no other copy
   * waits.
   */
  void captureFirstData(ByteBuffer out, int start, long nowNs, long pn) {
    if (dataCaptured || !firstData || delayNs < 0) {
      return;
    }
    dataCaptured = true;
    if (dueNs != Long.MAX_VALUE) {
      return;
    }
    take(out, start, nowNs);
    dataPn = pn;
  }

  /** The packet number of the first-data datagram whose copy waits, or -1. */
  long dataPn() {
    return dueNs == Long.MAX_VALUE ? -1 : dataPn;
  }

  /**
   * Takes a copy of the datagram just written to {@code out} between {@code start} and its
   * position, if it is the first handshake datagram and copies are enabled.
   */
  void capture(ByteBuffer out, int start, long nowNs) {
    if (captured || delayNs < 0) {
      return;
    }
    captured = true;
    take(out, start, nowNs);
    dataPn = -1;
  }

  private void take(ByteBuffer out, int start, long nowNs) {
    length = out.position() - start;
    bytes = new byte[length];
    Buffers.get(out, start, bytes, 0, length);
    dueNs = nowNs + delayNs;
  }

  /** When the copy is due, {@code Long.MAX_VALUE} if none waits. */
  long dueNs() {
    return dueNs;
  }

  /** The copy's size in bytes (0 if none waits). */
  int length() {
    return dueNs == Long.MAX_VALUE ? 0 : length;
  }

  /** Drops the copy unsent (the peer has the message, or the connection is closing). */
  void cancel() {
    dueNs = Long.MAX_VALUE;
    bytes = null;
  }

  /** Writes the copy into {@code out} and forgets it; returns its size. */
  int write(ByteBuffer out) {
    out.put(bytes, 0, length);
    int n = length;
    cancel();
    return n;
  }
}
