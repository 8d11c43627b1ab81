package dev.tern.transport.udp.sim;

import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.ConnectionCloseFrame;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.DataBlockedFrame;
import dev.tern.transport.udp.frame.FrameHandler;
import dev.tern.transport.udp.frame.FrameReader;
import dev.tern.transport.udp.frame.MaxDataFrame;
import dev.tern.transport.udp.frame.MaxStreamDataFrame;
import dev.tern.transport.udp.frame.MaxStreamsFrame;
import dev.tern.transport.udp.frame.NewConnectionIdFrame;
import dev.tern.transport.udp.frame.PathChallengeFrame;
import dev.tern.transport.udp.frame.PathResponseFrame;
import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.StopSendingFrame;
import dev.tern.transport.udp.frame.StreamDataBlockedFrame;
import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PlaintextProtection;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Channel} that passes datagrams on and records, for each one sent, its time, size and
 * the frames it carried (read back with the protocol's own parsers), so tests can check what a
 * sender put on the wire.
 */
final class WireLog implements Channel {
  /** One datagram as sent. */
  static final class Datagram {
    long sentNs;
    int bytes;
    final List<Long> streamIds = new ArrayList<>();
    final List<Long> resetStreamIds = new ArrayList<>();
    boolean ackOnly = true;
    /** The sender's pacing rate when it sent this datagram, bytes/s (0 if not sampled). */
    long pacingRate;
    /** Whether it repeats an earlier datagram byte for byte (docs/protocol.md §4.1's copies). */
    boolean copy;
  }

  /** Samples the sender's pacing rate at each datagram, if set. */
  java.util.function.LongSupplier pacingRate;

  private final Channel inner;
  final List<Datagram> sent = new ArrayList<>();
  private final PacketHeader header = new PacketHeader();
  private final FrameReader reader = new FrameReader();
  private Datagram current;
  private final java.util.Set<ByteBuffer> seen = new java.util.HashSet<>();

  WireLog(Channel inner) {
    this.inner = inner;
  }

  @Override
  public int transmit(long nowNs, ByteBuffer datagram, long[] deliverAtNs, boolean[] corrupt) {
    Datagram d = new Datagram();
    d.sentNs = nowNs;
    d.bytes = datagram.remaining();
    d.pacingRate = pacingRate == null ? 0 : pacingRate.getAsLong();
    ByteBuffer bytes = ByteBuffer.allocate(datagram.remaining()).put(datagram.duplicate()).flip();
    d.copy = !seen.add(bytes);
    current = d;
    ByteBuffer copy = datagram.duplicate();
    int offset = copy.position();
    while (offset < copy.limit() && header.parse(copy, offset, ConnectionId.V1_LENGTH)) {
      ByteBuffer payload = copy.duplicate();
      payload.limit(header.packetEnd - PlaintextProtection.TRAILER_BYTES);
      payload.position(header.payloadOffset());
      reader.read(payload.slice(), handler);
      offset = header.packetEnd;
    }
    sent.add(d);
    return inner.transmit(nowNs, datagram, deliverAtNs, corrupt);
  }

  private final FrameHandler handler = new FrameHandler() {
    private void eliciting() {
      current.ackOnly = false;
    }

    @Override public void onPing() { eliciting(); }
    @Override public void onAck(AckFrame frame) {}
    @Override public void onStream(StreamFrame frame) {
      eliciting();
      current.streamIds.add(frame.streamId);
    }
    @Override public void onCrypto(CryptoFrame frame) { eliciting(); }
    @Override public void onResetStream(ResetStreamFrame frame) {
      eliciting();
      current.resetStreamIds.add(frame.streamId);
    }
    @Override public void onStopSending(StopSendingFrame frame) { eliciting(); }
    @Override public void onMaxData(MaxDataFrame frame) { eliciting(); }
    @Override public void onMaxStreamData(MaxStreamDataFrame frame) { eliciting(); }
    @Override public void onMaxStreams(MaxStreamsFrame frame) { eliciting(); }
    @Override public void onDataBlocked(DataBlockedFrame frame) { eliciting(); }
    @Override public void onStreamDataBlocked(StreamDataBlockedFrame frame) { eliciting(); }
    @Override public void onNewConnectionId(NewConnectionIdFrame frame) { eliciting(); }
    @Override public void onPathChallenge(PathChallengeFrame frame) { eliciting(); }
    @Override public void onPathResponse(PathResponseFrame frame) {}
    @Override public void onConnectionClose(ConnectionCloseFrame frame) {}
    @Override public void onHandshakeDone() { eliciting(); }
    @Override public boolean stopped() { return false; }
  };
}
