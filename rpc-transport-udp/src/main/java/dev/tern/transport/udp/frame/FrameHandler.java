package dev.tern.transport.udp.frame;

/**
 * Receives decoded frames from {@link FrameReader}. The frame objects are reusable views, valid
 * only during the call: a handler copies what it keeps.
 */
public interface FrameHandler {
  /** A PING. */
  void onPing();

  /** An ACK or ACK_RECEIVE_TIMESTAMPS. */
  void onAck(AckFrame frame);

  /** A STREAM frame. */
  void onStream(StreamFrame frame);

  /** A CRYPTO frame. */
  void onCrypto(CryptoFrame frame);

  /**
   * A NEW_TOKEN (RFC 9000 §19.7). The default ignores it, for handlers that never see one (an
   * INITIAL's frame check, a fuzzing harness's).
   */
  default void onNewToken(NewTokenFrame frame) {}

  /** A RESET_STREAM. */
  void onResetStream(ResetStreamFrame frame);

  /** A STOP_SENDING. */
  void onStopSending(StopSendingFrame frame);

  /** A MAX_DATA. */
  void onMaxData(MaxDataFrame frame);

  /** A MAX_STREAM_DATA. */
  void onMaxStreamData(MaxStreamDataFrame frame);

  /** A MAX_STREAMS. */
  void onMaxStreams(MaxStreamsFrame frame);

  /** A DATA_BLOCKED. */
  void onDataBlocked(DataBlockedFrame frame);

  /** A STREAM_DATA_BLOCKED. */
  void onStreamDataBlocked(StreamDataBlockedFrame frame);

  /** A NEW_CONNECTION_ID. */
  void onNewConnectionId(NewConnectionIdFrame frame);

  /** A PATH_CHALLENGE. */
  void onPathChallenge(PathChallengeFrame frame);

  /** A PATH_RESPONSE. */
  void onPathResponse(PathResponseFrame frame);

  /** A CONNECTION_CLOSE or APPLICATION_CLOSE. */
  void onConnectionClose(ConnectionCloseFrame frame);

  /** A HANDSHAKE_DONE. */
  void onHandshakeDone();

  /**
   * A NEW_TICKET (docs/protocol.md §9.10). By default ignored: handlers that check where frames
   * may appear (an INITIAL's, a 0-RTT packet's) and the connection's override it.
   */
  default void onNewTicket(NewTicketFrame frame) {}

  /** Whether the handler wants the rest of the payload skipped (e.g. it closed the connection). */
  boolean stopped();
}
