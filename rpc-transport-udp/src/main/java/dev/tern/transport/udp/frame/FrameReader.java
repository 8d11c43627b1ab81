package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/**
 * Decodes a packet payload frame by frame into reusable views and hands each to a
 * {@link FrameHandler}. Every field is bounds-checked against the payload; nothing is allocated.
 * One instance per connection (not thread-safe).
 */
public final class FrameReader {
  /** {@link #read} result: every frame decoded. */
  public static final int OK = -1;

  private final AckFrame ack = new AckFrame();
  private final StreamFrame stream = new StreamFrame();
  private final CryptoFrame crypto = new CryptoFrame();
  private final NewTokenFrame newToken = new NewTokenFrame();
  private final ResetStreamFrame resetStream = new ResetStreamFrame();
  private final StopSendingFrame stopSending = new StopSendingFrame();
  private final MaxDataFrame maxData = new MaxDataFrame();
  private final MaxStreamDataFrame maxStreamData = new MaxStreamDataFrame();
  private final MaxStreamsFrame maxStreams = new MaxStreamsFrame();
  private final DataBlockedFrame dataBlocked = new DataBlockedFrame();
  private final StreamDataBlockedFrame streamDataBlocked = new StreamDataBlockedFrame();
  private final NewConnectionIdFrame newConnectionId = new NewConnectionIdFrame();
  private final PathChallengeFrame pathChallenge = new PathChallengeFrame();
  private final PathResponseFrame pathResponse = new PathResponseFrame();
  private final ConnectionCloseFrame close = new ConnectionCloseFrame();
  private final NewTicketFrame newTicket = new NewTicketFrame();

  private boolean ackEliciting;

  /** Whether the last {@link #read} payload held an ack-eliciting frame (RFC 9002 §2). */
  public boolean lastWasAckEliciting() {
    return ackEliciting;
  }

  /**
   * Reads every frame between the buffer's position and its limit. The buffer's position is left
   * where reading stopped.
   *
   * @return {@link #OK}, or the type of the first frame that was malformed or unknown
   *     (a {@link TransportError#FRAME_ENCODING_ERROR})
   */
  public int read(ByteBuffer payload, FrameHandler handler) {
    ackEliciting = false;
    while (payload.hasRemaining() && !handler.stopped()) {
      long typeLong = VarInt.read(payload);
      if (typeLong < 0 || typeLong > 0x3f) {
        return typeLong < 0 ? 0 : (int) Math.min(typeLong, Integer.MAX_VALUE);
      }
      int type = (int) typeLong;
      if (!dispatch(type, payload, handler)) {
        return type;
      }
      ackEliciting |= FrameType.isAckEliciting(type);
    }
    return OK;
  }

  private boolean dispatch(int type, ByteBuffer in, FrameHandler h) {
    if (type >= FrameType.STREAM && type <= (FrameType.STREAM | 7)) {
      if (!stream.decode(in, type)) {
        return false;
      }
      h.onStream(stream);
      return true;
    }
    switch (type) {
      case FrameType.PADDING:
        return true;
      case FrameType.PING:
        h.onPing();
        return true;
      case FrameType.ACK:
      case FrameType.ACK_RECEIVE_TIMESTAMPS:
        return ack.decode(in, type) && call(h, ack);
      case FrameType.RESET_STREAM:
        if (!resetStream.decode(in)) {
          return false;
        }
        h.onResetStream(resetStream);
        return true;
      case FrameType.STOP_SENDING:
        if (!stopSending.decode(in)) {
          return false;
        }
        h.onStopSending(stopSending);
        return true;
      case FrameType.CRYPTO:
        if (!crypto.decode(in)) {
          return false;
        }
        h.onCrypto(crypto);
        return true;
      case FrameType.NEW_TOKEN:
        if (!newToken.decode(in)) {
          return false;
        }
        h.onNewToken(newToken);
        return true;
      case FrameType.MAX_DATA:
        if (!maxData.decode(in)) {
          return false;
        }
        h.onMaxData(maxData);
        return true;
      case FrameType.MAX_STREAM_DATA:
        if (!maxStreamData.decode(in)) {
          return false;
        }
        h.onMaxStreamData(maxStreamData);
        return true;
      case FrameType.MAX_STREAMS:
        if (!maxStreams.decode(in)) {
          return false;
        }
        h.onMaxStreams(maxStreams);
        return true;
      case FrameType.DATA_BLOCKED:
        if (!dataBlocked.decode(in)) {
          return false;
        }
        h.onDataBlocked(dataBlocked);
        return true;
      case FrameType.STREAM_DATA_BLOCKED:
        if (!streamDataBlocked.decode(in)) {
          return false;
        }
        h.onStreamDataBlocked(streamDataBlocked);
        return true;
      case FrameType.NEW_CONNECTION_ID:
        if (!newConnectionId.decode(in)) {
          return false;
        }
        h.onNewConnectionId(newConnectionId);
        return true;
      case FrameType.PATH_CHALLENGE:
        if (!pathChallenge.decode(in)) {
          return false;
        }
        h.onPathChallenge(pathChallenge);
        return true;
      case FrameType.PATH_RESPONSE:
        if (!pathResponse.decode(in)) {
          return false;
        }
        h.onPathResponse(pathResponse);
        return true;
      case FrameType.CONNECTION_CLOSE:
      case FrameType.APPLICATION_CLOSE:
        if (!close.decode(in, type)) {
          return false;
        }
        h.onConnectionClose(close);
        return true;
      case FrameType.HANDSHAKE_DONE:
        h.onHandshakeDone();
        return true;
      case FrameType.NEW_TICKET:
        if (!newTicket.decode(in)) {
          return false;
        }
        h.onNewTicket(newTicket);
        return true;
      default:
        return false;
    }
  }

  private static boolean call(FrameHandler h, AckFrame ack) {
    h.onAck(ack);
    return true;
  }
}
