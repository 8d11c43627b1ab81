package dev.tern.transport.udp.fuzz;

import static dev.tern.transport.udp.fuzz.ServerHarness.check;

import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.ConnectionCloseFrame;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.DataBlockedFrame;
import dev.tern.transport.udp.frame.FrameHandler;
import dev.tern.transport.udp.frame.MaxDataFrame;
import dev.tern.transport.udp.frame.MaxStreamDataFrame;
import dev.tern.transport.udp.frame.MaxStreamsFrame;
import dev.tern.transport.udp.frame.NewConnectionIdFrame;
import dev.tern.transport.udp.frame.PathChallengeFrame;
import dev.tern.transport.udp.frame.PathResponseFrame;
import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.frame.StopSendingFrame;
import dev.tern.transport.udp.frame.StreamDataBlockedFrame;
import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/**
 * A {@link FrameHandler} that checks every decoded frame view against the payload it came from
 * and the RFC's field rules, writes a one-line description of it, and re-encodes it with the
 * frame's own encoder into {@link #reencoded} so that decoding that must describe the same frames.
 */
final class FrameChecker implements FrameHandler {
  /** Descriptions of the frames seen, in order. */
  final StringBuilder seen = new StringBuilder();
  /** Whether every frame seen could be encoded again exactly (see {@link #reencoded}). */
  boolean exact = true;
  /** The frames seen, encoded again. */
  final ByteBuffer reencoded;
  private final long[] tsPn = new long[AckFrame.MAX_TIMESTAMPS];
  private final long[] tsUs = new long[AckFrame.MAX_TIMESTAMPS];
  private final int payloadStart;
  private final int payloadEnd;

  /** A checker for frames decoded from {@code [payloadStart, payloadEnd)}. */
  FrameChecker(int payloadStart, int payloadEnd, int reencodeCapacity) {
    this.payloadStart = payloadStart;
    this.payloadEnd = payloadEnd;
    this.reencoded = ByteBuffer.allocate(reencodeCapacity);
  }

  private void slice(ByteBuffer source, int offset, int length, String what) {
    check(length >= 0 && offset >= payloadStart && offset + length <= payloadEnd, () -> what + " at "
        + offset + "+" + length + " outside the payload [" + payloadStart + ", " + payloadEnd + ")");
    int h = 1;
    for (int i = 0; i < length; i++) {
      h = 31 * h + source.get(offset + i);
    }
    seen.append(" data=").append(length).append('#').append(h);
  }

  private static void varint(long v, String what) {
    check(v >= 0 && v <= VarInt.MAX, () -> what + " " + v + " is not a varint value");
  }

  @Override
  public void onPing() {
    seen.append("PING\n");
    SimpleFrames.encodePing(reencoded);
  }

  @Override
  public void onAck(AckFrame f) {
    check(f.rangeCount >= 1 && f.rangeCount <= AckFrame.MAX_RANGES, () -> "range count " + f.rangeCount);
    varint(f.ackDelay, "ACK Delay");
    // RFC 9000 §19.3: the delay is ackDelay * 2^exponent microseconds; it is never negative.
    long ns = f.ackDelayNs();
    check(ns >= 0, () -> "ACK Delay " + f.ackDelay + " decodes to " + ns + " ns");
    if (f.ackDelay < 1L << 40) {
      check(ns == (f.ackDelay << AckFrame.ACK_DELAY_EXPONENT) * 1000L, () -> "ACK Delay "
          + f.ackDelay + " decodes to " + ns + " ns");
    }
    seen.append("ACK");
    for (int i = 0; i < f.rangeCount; i++) {
      int r = i;
      check(f.smallest[r] >= 0 && f.smallest[r] <= f.largest[r], () -> "range " + r + " ["
          + f.smallest[r] + ", " + f.largest[r] + "]");
      // RFC 9000 §19.3.1: ranges descend, separated by at least one missing packet.
      check(r == 0 || f.largest[r] < f.smallest[r - 1] - 1, () -> "range " + r
          + " not below range " + (r - 1));
      seen.append(' ').append(f.smallest[r]).append('-').append(f.largest[r]);
    }
    if (f.hasTimestamps) {
      for (int i = 0; i < f.timestampCount; i++) {
        int t = i;
        check(f.timestampPn[t] >= 0 && f.timestampPn[t] <= f.largest[0]
            && f.timestampUs[t] >= 0, () -> "timestamp " + t);
        seen.append(" t").append(f.timestampPn[t]).append('@').append(f.timestampUs[t]);
        tsPn[t] = f.timestampPn[t];
        tsUs[t] = f.timestampUs[t];
      }
    }
    seen.append('\n');
    int n = f.hasTimestamps ? f.timestampCount : 0;
    boolean encodable = !f.hasTimestamps || n > 0; // without timestamps the encoder writes 0x02
    for (int i = 0; i < n; i++) {
      encodable &= tsUs[i] <= tsUs[0]; // the encoder takes times as deltas below the first
    }
    if (!encodable) {
      exact = false;
      return;
    }
    int written = AckFrame.encode(reencoded, f.largest, f.smallest, f.rangeCount, 0, tsPn, tsUs,
        n, reencoded.remaining());
    check(written == f.rangeCount, () -> "re-encoded " + written + " of " + f.rangeCount + " ranges");
  }

  @Override
  public void onStream(StreamFrame f) {
    varint(f.streamId, "stream id");
    varint(f.offset + f.length, "stream end");
    seen.append("STREAM ").append(f.streamId).append(' ').append(f.offset).append(f.fin ? " fin" : "");
    slice(f.source, f.dataOffset, f.length, "stream data");
    seen.append('\n');
    StreamFrame.encodeHeader(reencoded, f.streamId, f.offset, f.length, f.fin);
    copy(f.source, f.dataOffset, f.length);
  }

  @Override
  public void onCrypto(CryptoFrame f) {
    varint(f.offset + f.length, "crypto end");
    seen.append("CRYPTO ").append(f.offset);
    slice(f.source, f.dataOffset, f.length, "crypto data");
    seen.append('\n');
    CryptoFrame.encodeHeader(reencoded, f.offset, f.length);
    copy(f.source, f.dataOffset, f.length);
  }

  private void copy(ByteBuffer source, int offset, int length) {
    for (int i = 0; i < length; i++) {
      reencoded.put(source.get(offset + i));
    }
  }

  @Override
  public void onResetStream(ResetStreamFrame f) {
    seen.append("RESET_STREAM ").append(f.streamId).append(' ').append(f.applicationErrorCode)
        .append(' ').append(f.finalSize).append('\n');
    ResetStreamFrame.encode(reencoded, f.streamId, f.applicationErrorCode, f.finalSize);
  }

  @Override
  public void onStopSending(StopSendingFrame f) {
    seen.append("STOP_SENDING ").append(f.streamId).append(' ').append(f.applicationErrorCode)
        .append('\n');
    StopSendingFrame.encode(reencoded, f.streamId, f.applicationErrorCode);
  }

  @Override
  public void onMaxData(MaxDataFrame f) {
    seen.append("MAX_DATA ").append(f.maximumData).append('\n');
    MaxDataFrame.encode(reencoded, f.maximumData);
  }

  @Override
  public void onMaxStreamData(MaxStreamDataFrame f) {
    seen.append("MAX_STREAM_DATA ").append(f.streamId).append(' ').append(f.maximumStreamData)
        .append('\n');
    MaxStreamDataFrame.encode(reencoded, f.streamId, f.maximumStreamData);
  }

  @Override
  public void onMaxStreams(MaxStreamsFrame f) {
    seen.append("MAX_STREAMS ").append(f.maximumStreams).append('\n');
    MaxStreamsFrame.encode(reencoded, f.maximumStreams);
  }

  @Override
  public void onDataBlocked(DataBlockedFrame f) {
    seen.append("DATA_BLOCKED ").append(f.maximumData).append('\n');
    DataBlockedFrame.encode(reencoded, f.maximumData);
  }

  @Override
  public void onStreamDataBlocked(StreamDataBlockedFrame f) {
    seen.append("STREAM_DATA_BLOCKED ").append(f.streamId).append(' ')
        .append(f.maximumStreamData).append('\n');
    StreamDataBlockedFrame.encode(reencoded, f.streamId, f.maximumStreamData);
  }

  @Override
  public void onNewConnectionId(NewConnectionIdFrame f) {
    check(f.retirePriorTo <= f.sequenceNumber, () -> "retire prior to beyond the sequence number");
    check(f.cidLength >= 1 && f.cidLength <= ConnectionId.MAX_LENGTH, () -> "cid length " + f.cidLength);
    seen.append("NEW_CONNECTION_ID ").append(f.sequenceNumber).append(' ')
        .append(f.retirePriorTo);
    slice(f.source, f.cidOffset, f.cidLength, "connection ID");
    slice(f.source, f.resetTokenOffset, NewConnectionIdFrame.RESET_TOKEN_BYTES, "reset token");
    seen.append('\n');
    byte[] token = new byte[NewConnectionIdFrame.RESET_TOKEN_BYTES];
    for (int i = 0; i < token.length; i++) {
      token[i] = f.source.get(f.resetTokenOffset + i);
    }
    NewConnectionIdFrame.encode(reencoded, f.sequenceNumber, f.retirePriorTo,
        ConnectionId.read(f.source, f.cidOffset, f.cidLength), token);
  }

  @Override
  public void onPathChallenge(PathChallengeFrame f) {
    seen.append("PATH_CHALLENGE ").append(f.data).append('\n');
    PathChallengeFrame.encode(reencoded, f.data);
  }

  @Override
  public void onPathResponse(PathResponseFrame f) {
    seen.append("PATH_RESPONSE ").append(f.data).append('\n');
    PathResponseFrame.encode(reencoded, f.data);
  }

  @Override
  public void onConnectionClose(ConnectionCloseFrame f) {
    varint(f.errorCode, "error code");
    varint(f.frameType, "frame type");
    check(f.reason() != null, () -> "reason");
    seen.append(f.application ? "APPLICATION_CLOSE " : "CONNECTION_CLOSE ").append(f.errorCode)
        .append(' ').append(f.frameType);
    slice(f.source, f.reasonOffset, f.reasonLength, "reason");
    seen.append('\n');
    byte[] reason = new byte[f.reasonLength];
    for (int i = 0; i < reason.length; i++) {
      reason[i] = f.source.get(f.reasonOffset + i);
    }
    boolean known = TransportError.of(f.errorCode).code() == f.errorCode;
    if (reason.length > ConnectionCloseFrame.MAX_REASON_BYTES || !(f.application || known)) {
      // The encoder caps the reason and speaks only known codes: this one cannot round-trip.
      exact = false;
      return;
    }
    if (f.application) {
      ConnectionCloseFrame.encodeApplication(reencoded, f.errorCode, reason);
    } else {
      ConnectionCloseFrame.encodeTransport(reencoded, TransportError.of(f.errorCode),
          f.frameType, reason);
    }
  }

  @Override
  public void onHandshakeDone() {
    seen.append("HANDSHAKE_DONE\n");
    SimpleFrames.encodeHandshakeDone(reencoded);
  }

  @Override
  public boolean stopped() {
    return false;
  }
}
