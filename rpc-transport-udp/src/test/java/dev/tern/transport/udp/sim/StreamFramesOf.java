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
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Test utility: the STREAM frames of a short-header datagram, as (id, offset, length) triples. */
final class StreamFramesOf implements FrameHandler {
  final List<long[]> frames = new ArrayList<>();

  static List<long[]> parse(ByteBuffer datagram) {
    StreamFramesOf h = new StreamFramesOf();
    int p = datagram.position();
    int first = datagram.get(p) & 0xff;
    if ((first & 0x80) != 0) {
      return h.frames; // long header: handshake only
    }
    int headerLength = 1 + 8 + (first & 3) + 1;
    ByteBuffer b = datagram.duplicate();
    b.position(p + headerLength).limit(datagram.limit() - 4);
    new FrameReader().read(b, h);
    return h.frames;
  }

  @Override public void onStream(StreamFrame f) {
    frames.add(new long[] {f.streamId, f.offset, f.length});
  }
  @Override public void onPing() {}
  @Override public void onAck(AckFrame f) {}
  @Override public void onCrypto(CryptoFrame f) {}
  @Override public void onResetStream(ResetStreamFrame f) {}
  @Override public void onStopSending(StopSendingFrame f) {}
  @Override public void onMaxData(MaxDataFrame f) {}
  @Override public void onMaxStreamData(MaxStreamDataFrame f) {}
  @Override public void onMaxStreams(MaxStreamsFrame f) {}
  @Override public void onDataBlocked(DataBlockedFrame f) {}
  @Override public void onStreamDataBlocked(StreamDataBlockedFrame f) {}
  @Override public void onNewConnectionId(NewConnectionIdFrame f) {}
  @Override public void onPathChallenge(PathChallengeFrame f) {}
  @Override public void onPathResponse(PathResponseFrame f) {}
  @Override public void onConnectionClose(ConnectionCloseFrame f) {}
  @Override public void onHandshakeDone() {}
  @Override public boolean stopped() { return false; }
}
