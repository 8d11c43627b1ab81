package dev.tern.transport.udp.frame;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** A test handler that records what it is given (copies, since frames are reusable views). */
final class RecordingHandler implements FrameHandler {
  final List<String> events = new ArrayList<>();
  AckFrame ack;
  ResetStreamFrame resetStream;
  StopSendingFrame stopSending;
  MaxDataFrame maxData;
  MaxStreamDataFrame maxStreamData;
  MaxStreamsFrame maxStreams;
  DataBlockedFrame dataBlocked;
  StreamDataBlockedFrame streamDataBlocked;
  NewConnectionIdFrame newCid;
  ConnectionCloseFrame close;
  long pathChallenge;
  long pathResponse;
  long streamId;
  long streamOffset;
  long cryptoOffset;
  boolean fin;
  String data;

  private static String hex(java.nio.ByteBuffer b, int offset, int length) {
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = b.get(offset + i);
    }
    return HexFormat.of().formatHex(out);
  }

  @Override public void onPing() { events.add("ping"); }
  @Override public void onAck(AckFrame f) { events.add("ack"); ack = f; }
  @Override public void onStream(StreamFrame f) {
    events.add("stream");
    streamId = f.streamId;
    streamOffset = f.offset;
    fin = f.fin;
    data = hex(f.source, f.dataOffset, f.length);
  }
  @Override public void onCrypto(CryptoFrame f) {
    events.add("crypto");
    cryptoOffset = f.offset;
    data = hex(f.source, f.dataOffset, f.length);
  }
  @Override public void onResetStream(ResetStreamFrame f) { events.add("reset"); resetStream = f; }
  @Override public void onStopSending(StopSendingFrame f) { events.add("stop"); stopSending = f; }
  @Override public void onMaxData(MaxDataFrame f) { events.add("max-data"); maxData = f; }
  @Override public void onMaxStreamData(MaxStreamDataFrame f) {
    events.add("max-stream-data");
    maxStreamData = f;
  }
  @Override public void onMaxStreams(MaxStreamsFrame f) { events.add("max-streams"); maxStreams = f; }
  @Override public void onDataBlocked(DataBlockedFrame f) { events.add("blocked"); dataBlocked = f; }
  @Override public void onStreamDataBlocked(StreamDataBlockedFrame f) {
    events.add("stream-blocked");
    streamDataBlocked = f;
  }
  @Override public void onNewConnectionId(NewConnectionIdFrame f) { events.add("new-cid"); newCid = f; }
  @Override public void onPathChallenge(PathChallengeFrame f) {
    events.add("challenge");
    pathChallenge = f.data;
  }
  @Override public void onPathResponse(PathResponseFrame f) {
    events.add("response");
    pathResponse = f.data;
  }
  @Override public void onConnectionClose(ConnectionCloseFrame f) { events.add("close"); close = f; }
  @Override public void onHandshakeDone() { events.add("handshake-done"); }
  @Override public boolean stopped() { return false; }
}
