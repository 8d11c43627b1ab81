package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.ConnectionCloseFrame;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.DataBlockedFrame;
import dev.tern.transport.udp.frame.FrameHandler;
import dev.tern.transport.udp.frame.MaxDataFrame;
import dev.tern.transport.udp.frame.MaxStreamDataFrame;
import dev.tern.transport.udp.frame.MaxStreamsFrame;
import dev.tern.transport.udp.frame.NewConnectionIdFrame;
import dev.tern.transport.udp.frame.NewTicketFrame;
import dev.tern.transport.udp.frame.NewTokenFrame;
import dev.tern.transport.udp.frame.PathChallengeFrame;
import dev.tern.transport.udp.frame.PathResponseFrame;
import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.StopSendingFrame;
import dev.tern.transport.udp.frame.StreamDataBlockedFrame;
import dev.tern.transport.udp.frame.StreamFrame;

/**
 * A first pass over an INITIAL packet's frames, applying none of them: RFC 9000 §17.2.2 allows
 * only CRYPTO, ACK, PING, PADDING and CONNECTION_CLOSE in INITIAL packets (Table 3), and a packet
 * with any other frame is dropped whole and counted, before any of its frames takes effect.
 */
final class InitialFrameCheck implements FrameHandler {
  private boolean forbidden;

  /** Starts the check of a packet. */
  void begin() {
    forbidden = false;
  }

  /** Whether the packet carried a frame INITIAL packets may not carry. */
  boolean forbidden() {
    return forbidden;
  }

  private void no() {
    forbidden = true;
  }

  @Override
  public boolean stopped() {
    return forbidden;
  }

  @Override
  public void onPing() {}

  @Override
  public void onAck(AckFrame frame) {}

  @Override
  public void onCrypto(CryptoFrame frame) {}

  @Override
  public void onConnectionClose(ConnectionCloseFrame frame) {}

  @Override
  public void onNewTicket(NewTicketFrame frame) {
    no();
  }

  @Override
  public void onStream(StreamFrame frame) {
    no();
  }

  @Override
  public void onResetStream(ResetStreamFrame frame) {
    no();
  }

  @Override
  public void onStopSending(StopSendingFrame frame) {
    no();
  }

  @Override
  public void onMaxData(MaxDataFrame frame) {
    no();
  }

  @Override
  public void onMaxStreamData(MaxStreamDataFrame frame) {
    no();
  }

  @Override
  public void onMaxStreams(MaxStreamsFrame frame) {
    no();
  }

  @Override
  public void onDataBlocked(DataBlockedFrame frame) {
    no();
  }

  @Override
  public void onStreamDataBlocked(StreamDataBlockedFrame frame) {
    no();
  }

  @Override
  public void onNewConnectionId(NewConnectionIdFrame frame) {
    no();
  }

  @Override
  public void onPathChallenge(PathChallengeFrame frame) {
    no();
  }

  @Override
  public void onPathResponse(PathResponseFrame frame) {
    no();
  }

  @Override
  public void onNewToken(NewTokenFrame frame) {
    no();
  }

  @Override
  public void onHandshakeDone() {
    no();
  }
}
