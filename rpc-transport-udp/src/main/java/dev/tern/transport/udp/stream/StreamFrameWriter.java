package dev.tern.transport.udp.stream;

import dev.tern.transport.udp.frame.DataBlockedFrame;
import dev.tern.transport.udp.frame.MaxDataFrame;
import dev.tern.transport.udp.frame.MaxStreamDataFrame;
import dev.tern.transport.udp.frame.MaxStreamsFrame;
import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.StopSendingFrame;
import dev.tern.transport.udp.frame.StreamDataBlockedFrame;
import dev.tern.transport.udp.recovery.SentFrameType;
import dev.tern.transport.udp.recovery.SentPacketLog;
import java.nio.ByteBuffer;

/**
 * Writes the stream-related frames of a packet (flow-control credit, resets, stream data in the
 * scheduler's order), records each in the {@link SentPacketLog}, and applies the fate recovery
 * reports for them: acknowledged data is released, lost frames are re-queued at once.
 */
public final class StreamFrameWriter {
  /** Room a control frame may need at most (type + three 8-byte varints). */
  private static final int MAX_CONTROL_FRAME = 25;

  private final StreamSet set;
  private final EmittedFrame emitted = new EmittedFrame();
  private boolean lastCallRetransmitted;
  private int lastCallMostUrgent = Integer.MAX_VALUE;

  /** A writer over {@code set}. */
  public StreamFrameWriter(StreamSet set) {
    this.set = set;
  }

  /** Whether control frames are waiting. */
  public boolean hasControlFrames() {
    return set.maxDataPending || set.maxStreamsPending || !set.controlQueue.isEmpty()
        || dataBlocked();
  }

  private boolean dataBlocked() {
    return set.connectionCredit() == 0 && set.dataBlockedReportedAt != set.peerMaxData
        && !set.scheduler.isEmpty();
  }

  /** Whether the last {@link #writeStreamFrames} re-sent data that had been sent before. */
  public boolean lastCallRetransmitted() {
    return lastCallRetransmitted;
  }

  /**
   * The lowest urgency value (the most urgent stream) the last {@link #writeStreamFrames} wrote
   * data of, {@code Integer.MAX_VALUE} if it wrote none.
   */
  public int lastCallMostUrgent() {
    return lastCallMostUrgent;
  }

  /** The urgency of the stream the scheduler would send next, or -1 if none is ready. */
  public int nextUrgency() {
    Stream s = set.scheduler.next();
    return s == null ? -1 : s.urgency();
  }

  /**
   * Whether any stream has lost data waiting to be sent again. It scans every stream, so it is
   * for rare decisions (a due PMTU probe), not for every packet.
   */
  public boolean hasRetransmission() {
    return set.anyRetransmission();
  }

  /** Whether stream data is waiting that can be sent now. */
  public boolean hasStreamData() {
    return !set.scheduler.isEmpty();
  }

  /**
   * Writes pending control frames while they fit before {@code limit}.
   *
   * @return whether anything was written (all are ack-eliciting)
   */
  public boolean writeControlFrames(ByteBuffer out, int limit, SentPacketLog log) {
    boolean wrote = false;
    if (set.maxDataPending && limit - out.position() >= MAX_CONTROL_FRAME) {
      MaxDataFrame.encode(out, set.takeMaxData());
      log.addFrame(SentFrameType.MAX_DATA, 0, 0, 0);
      wrote = true;
    }
    if (set.maxStreamsPending && limit - out.position() >= MAX_CONTROL_FRAME) {
      set.maxStreamsPending = false;
      MaxStreamsFrame.encode(out, set.maxStreamsAdvertised);
      log.addFrame(SentFrameType.MAX_STREAMS, 0, 0, 0);
      wrote = true;
    }
    if (dataBlocked() && limit - out.position() >= MAX_CONTROL_FRAME) {
      set.dataBlockedReportedAt = set.peerMaxData;
      DataBlockedFrame.encode(out, set.peerMaxData);
      log.addFrame(SentFrameType.DATA_BLOCKED, 0, 0, 0);
      wrote = true;
    }
    Stream s;
    while ((s = set.controlQueue.peekFirst()) != null
        && limit - out.position() >= 3 * MAX_CONTROL_FRAME) {
      set.controlQueue.pollFirst();
      s.controlQueued = false;
      wrote |= writeStreamControl(s, out, log);
    }
    return wrote;
  }

  private boolean writeStreamControl(Stream s, ByteBuffer out, SentPacketLog log) {
    boolean wrote = false;
    long id = s.id();
    SendStream send = s.send();
    ReceiveStream receive = s.receive();
    if (send.resetPending()) {
      ResetStreamFrame.encode(out, id, send.resetCode(), send.resetFinalSize());
      send.onResetSent();
      log.addFrame(SentFrameType.RESET_STREAM, id, 0, 0);
      wrote = true;
    } else if (send.blockedByStreamCredit()) {
      StreamDataBlockedFrame.encode(out, id, send.maxStreamData());
      send.onBlockedReported();
      log.addFrame(SentFrameType.STREAM_DATA_BLOCKED, id, 0, 0);
      wrote = true;
    }
    if (receive.stopPending()) {
      StopSendingFrame.encode(out, id, receive.stopCode());
      receive.onStopSent();
      log.addFrame(SentFrameType.STOP_SENDING, id, 0, 0);
      wrote = true;
    } else if (receive.creditUpdatePending()) {
      MaxStreamDataFrame.encode(out, id, receive.takeCreditUpdate());
      log.addFrame(SentFrameType.MAX_STREAM_DATA, id, 0, 0);
      wrote = true;
    }
    return wrote;
  }

  /**
   * Fills the packet with stream data up to {@code limit}, in the scheduler's order.
   *
   * @return whether any STREAM frame was written
   */
  public boolean writeStreamFrames(ByteBuffer out, int limit, SentPacketLog log) {
    boolean wrote = false;
    lastCallRetransmitted = false;
    lastCallMostUrgent = Integer.MAX_VALUE;
    Stream s;
    while ((s = set.scheduler.next()) != null) {
      int room = limit - out.position();
      if (room < 8) {
        break;
      }
      SendStream send = s.send();
      long credit = set.scheduler.creditFor(s, set.connectionCredit());
      if (!send.hasSendable(credit)) {
        set.scheduler.onEmitted(s, false);
        if (send.blockedByStreamCredit()) {
          set.queueControl(s);
        }
        continue;
      }
      if (!send.emit(s.id(), out, room, credit, emitted)) {
        break;
      }
      set.freshBytesSent += emitted.freshBytes;
      lastCallRetransmitted |= emitted.freshBytes < emitted.length;
      lastCallMostUrgent = Math.min(lastCallMostUrgent, s.urgency());
      log.addFrame(emitted.fin ? SentFrameType.STREAM_FIN : SentFrameType.STREAM, s.id(),
          emitted.offset, emitted.length);
      wrote = true;
      boolean more = send.hasSendable(set.scheduler.creditFor(s, set.connectionCredit()));
      set.scheduler.onEmitted(s, more);
      if (!more && send.blockedByStreamCredit()) {
        set.queueControl(s);
      }
    }
    return wrote;
  }

  /**
   * A recorded stream-related frame was acknowledged.
   *
   * @return false if the type is not stream-related
   */
  public boolean onAcked(byte type, long a, long b, int length, StreamListener listener) {
    Stream s;
    switch (type) {
      case SentFrameType.STREAM:
      case SentFrameType.STREAM_FIN:
        s = set.get(a);
        if (s != null) {
          int before = s.send().writableBytes();
          s.send().onAcked(b, length, type == SentFrameType.STREAM_FIN);
          if (before == 0 && s.send().writableBytes() > 0) {
            listener.onWritable(s);
          }
          set.closeIfTerminal(s);
        }
        return true;
      case SentFrameType.RESET_STREAM:
        s = set.get(a);
        if (s != null) {
          s.send().onResetAcked();
          set.closeIfTerminal(s);
        }
        return true;
      case SentFrameType.MAX_DATA:
      case SentFrameType.MAX_STREAMS:
      case SentFrameType.MAX_STREAM_DATA:
      case SentFrameType.STOP_SENDING:
      case SentFrameType.DATA_BLOCKED:
      case SentFrameType.STREAM_DATA_BLOCKED:
        return true;
      default:
        return false;
    }
  }

  /**
   * A recorded stream-related frame was lost (or is repeated by a probe): re-queue it.
   *
   * @return false if the type is not stream-related
   */
  public boolean onLost(byte type, long a, long b, int length) {
    Stream s;
    switch (type) {
      case SentFrameType.STREAM:
      case SentFrameType.STREAM_FIN:
        s = set.get(a);
        if (s != null) {
          s.send().onLost(b, length, type == SentFrameType.STREAM_FIN);
          set.markSendable(s);
        }
        return true;
      case SentFrameType.RESET_STREAM:
        s = set.get(a);
        if (s != null) {
          s.send().onResetLost();
          set.queueControl(s);
        }
        return true;
      case SentFrameType.STOP_SENDING:
        s = set.get(a);
        if (s != null) {
          s.receive().onStopLost();
          set.queueControl(s);
        }
        return true;
      case SentFrameType.MAX_STREAM_DATA:
        s = set.get(a);
        if (s != null) {
          s.receive().onCreditUpdateLost();
          set.queueControl(s);
        }
        return true;
      case SentFrameType.MAX_DATA:
        set.maxDataPending = true;
        return true;
      case SentFrameType.MAX_STREAMS:
        set.maxStreamsPending = true;
        return true;
      case SentFrameType.DATA_BLOCKED:
        set.dataBlockedReportedAt = -1;
        return true;
      case SentFrameType.STREAM_DATA_BLOCKED:
        return true;
      default:
        return false;
    }
  }
}
