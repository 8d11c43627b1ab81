package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.ConnectionCloseFrame;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.DataBlockedFrame;
import dev.tern.transport.udp.frame.FrameHandler;
import dev.tern.transport.udp.frame.FrameType;
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
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.handshake.HandshakeException;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.path.MtuDiscovery;
import dev.tern.transport.udp.recovery.SentFrameSink;
import dev.tern.transport.udp.recovery.SentFrameType;
import dev.tern.transport.udp.util.Saturating;

/**
 * Applies received frames to a {@link Connection} and the fate of sent frames that recovery
 * reports. A frame that breaks the protocol records the error here; the receive path then
 * closes the connection with it.
 */
final class FrameDispatcher implements FrameHandler, SentFrameSink {
  private final Connection c;
  TransportError error;
  long errorFrameType;
  String errorReason;
  /** The handshake failure of the packet being processed, or null. */
  HandshakeException handshakeFailure;

  FrameDispatcher(Connection c) {
    this.c = c;
  }

  void begin() {
    error = null;
    handshakeFailure = null;
  }

  private void fail(TransportError e, int frameType, String reason) {
    if (error == null) {
      error = e;
      errorFrameType = frameType;
      errorReason = reason;
    }
  }

  @Override
  public boolean stopped() {
    return error != null || handshakeFailure != null || c.state == ConnectionState.DRAINING
        || c.state == ConnectionState.CLOSED;
  }

  @Override
  public void onPing() {}

  /**
   * RFC 9000 §12.5, §17.2.3: ACK, CRYPTO, HANDSHAKE_DONE, PATH_RESPONSE (and NEW_TICKET, a
   * server's frame) may not come in a 0-RTT packet; one that does is a PROTOCOL_VIOLATION.
   */
  private boolean forbiddenInZeroRtt(int frameType) {
    if (c.rxZeroRtt) {
      fail(TransportError.PROTOCOL_VIOLATION, frameType, "frame type 0x"
          + Integer.toHexString(frameType) + " in a 0-RTT packet");
      return true;
    }
    return false;
  }

  @Override
  public void onAck(AckFrame f) {
    if (forbiddenInZeroRtt(FrameType.ACK)) {
      return;
    }
    if (f.hasTimestamps) {
      c.stats.timestampedAcksReceived++;
    }
    if (!c.spaces[c.rxSpace].loss.onAck(f, c.nowNs)) { // RFC 9000 §12.3: ACKs its own space
      fail(TransportError.PROTOCOL_VIOLATION, FrameType.ACK, "ACK of a packet never sent");
    } else if (c.rxSpace == PacketSpace.APPLICATION) {
      c.keys.onOneRttAcknowledged(c.loss.largestAckedPn());
    }
  }

  private boolean established(int frameType) {
    if (c.handshake.peer() == null) {
      fail(TransportError.PROTOCOL_VIOLATION, frameType, "frame before the handshake message");
      return false;
    }
    return true;
  }

  @Override
  public void onStream(StreamFrame f) {
    if (established(FrameType.STREAM)) {
      TransportError e = c.streams.onStreamFrame(f);
      if (e != null) {
        fail(e, FrameType.STREAM, "stream " + f.streamId);
      } else if (c.rxZeroRtt && c.streams.receivedTotal() > c.config.maxEarlyDataBytes) {
        // RFC 9001 §4.6.1: more early data than the ticket allowed.
        fail(TransportError.PROTOCOL_VIOLATION, FrameType.STREAM, "0-RTT stream data beyond"
            + " the early-data limit of " + c.config.maxEarlyDataBytes + " bytes");
      }
    }
  }

  @Override
  public void onCrypto(CryptoFrame f) {
    if (forbiddenInZeroRtt(FrameType.CRYPTO)) {
      return;
    }
    boolean first = c.handshake.peer() == null;
    String e;
    try {
      e = c.handshake.onCrypto(f, c.isClient ? TransportParameters.SERVER_HELLO
          : TransportParameters.CLIENT_HELLO, c.keys.crypto);
    } catch (HandshakeException x) {
      // RFC 9001 §4.8: a handshake failure closes the connection with a CRYPTO_ERROR code.
      handshakeFailure = x;
      return;
    }
    if (e == null && first && c.keys.clientHandshakeFinished()) {
      c.keys.installOneRtt(); // the ServerHello authenticated: the client has its 1-RTT keys
    }
    if (e != null) {
      fail(TransportError.TRANSPORT_PARAMETER_ERROR, FrameType.CRYPTO, e);
    } else if (first) {
      onPeerParameters();
    }
  }

  private void onPeerParameters() {
    TransportParameters p = c.handshake.peer();
    if (!p.initialSourceConnectionId.equals(c.peerCid)) {
      // RFC 9000 §7.3: each side's parameter must match the Source Connection ID of its first
      // INITIAL (the server took the client's from the INITIAL that created the connection).
      fail(TransportError.TRANSPORT_PARAMETER_ERROR, FrameType.CRYPTO,
          "initial_source_connection_id " + p.initialSourceConnectionId
              + " does not match the packet's source connection ID " + c.peerCid);
      return;
    }
    if (c.isClient) {
      String e = checkServerConnectionIds(p);
      if (e != null) {
        fail(TransportError.TRANSPORT_PARAMETER_ERROR, FrameType.CRYPTO, e);
        return;
      }
    }
    if (!c.isClient) {
      if (p.chosenVersion != c.version) {
        fail(TransportError.VERSION_NEGOTIATION_ERROR, FrameType.CRYPTO, "version mismatch");
        return;
      }
      // docs/protocol.md §3: a client that gave up a version we speak was downgraded.
      if (p.attemptedVersion != p.chosenVersion
          && Versions.contains(c.config.versions, p.attemptedVersion)) {
        fail(TransportError.VERSION_NEGOTIATION_ERROR, FrameType.CRYPTO, "version downgrade");
        return;
      }
    }
    c.streams.setPeerLimits(p.initialMaxData, p.initialMaxStreamData, p.initialMaxStreams);
    if (c.isClient) {
      c.keys.onServerEarlyData(p); // docs/protocol.md §9.10: accepted, or sent again in 1-RTT
      c.streams.raiseLocalStreamLimits(p.initialMaxStreamData);
    }
    if (p.maxIdleTimeoutMs > 0) {
      // RFC 9000 §18.2: any varint is a valid max_idle_timeout; saturate, never wrap.
      long peerIdle = Saturating.msToNs(p.maxIdleTimeoutMs);
      c.idleTimeoutNs = c.idleTimeoutNs == 0 ? peerIdle : Math.min(c.idleTimeoutNs, peerIdle);
    }
    c.peerWantsTimestamps = p.wantsReceiveTimestamps;
    if (c.isClient) {
      c.peerResetToken = p.statelessResetToken;
      c.peerResetProofKey = p.resetProofKey;
      c.handshake.onPeerHasIt();
    } else {
      c.keys.decideEarlyData(p); // before the ServerHello, which states the decision
      if (!c.keys.answerHandshake()) {
        return;
      }
      // docs/protocol.md §4: HANDSHAKE_DONE may go out right after the ServerHello, but the
      // server's handshake is confirmed only on the client's first 1-RTT packet (RFC 9001
      // §4.1.2: when the handshake completes, i.e. once the client shows it has our message).
      c.handshakeDonePending = true;
    }
    c.loss.setPeerMaxAckDelay(Saturating.msToNs(p.maxAckDelayMs), c.handshakeConfirmed);
    // RFC 9000 §18.2: never send a datagram larger than the peer's max_udp_payload_size.
    c.mtu.capAt((int) Math.min(p.maxUdpPayloadSize, MtuDiscovery.MAX_UDP_PAYLOAD));
    c.pathMtu.checkSize();
    c.state = ConnectionState.ESTABLISHED;
    c.listener.onHandshakeComplete(c);
  }

  /**
   * RFC 9000 §7.3: the server's original_destination_connection_id must be the Destination
   * Connection ID of the client's first INITIAL, and its retry_source_connection_id the Source
   * Connection ID of the Retry the client accepted, absent if it accepted none. Either mismatch
   * shows that someone else's Retry, or a rewritten connection ID, came between.
   *
   * @return null if they match, else what is wrong
   */
  private String checkServerConnectionIds(TransportParameters p) {
    if (p.originalDestinationConnectionId == null
        || !p.originalDestinationConnectionId.equals(c.handshakeDcid)) {
      return "original_destination_connection_id " + p.originalDestinationConnectionId
          + " is not the connection ID of the client's first INITIAL " + c.handshakeDcid;
    }
    if (c.retrySourceCid == null && p.retrySourceConnectionId != null) {
      return "retry_source_connection_id " + p.retrySourceConnectionId + " without a Retry";
    }
    if (c.retrySourceCid != null && !c.retrySourceCid.equals(p.retrySourceConnectionId)) {
      return "retry_source_connection_id " + p.retrySourceConnectionId
          + " is not the Retry's source connection ID " + c.retrySourceCid;
    }
    return null;
  }

  /**
   * NEW_TOKEN (RFC 9000 §19.7): a client hands the token to its listener, for a later
   * connection's first INITIAL; a server receiving one is a PROTOCOL_VIOLATION.
   */
  @Override
  public void onNewToken(NewTokenFrame f) {
    if (!c.isClient) {
      fail(TransportError.PROTOCOL_VIOLATION, FrameType.NEW_TOKEN, "NEW_TOKEN from a client");
      return;
    }
    if (established(FrameType.NEW_TOKEN)) {
      byte[] token = f.token();
      if (java.util.Arrays.equals(token, c.lastTokenReceived)) {
        return; // the same frame again, after a spurious loss
      }
      c.lastTokenReceived = token;
      c.stats.newTokensReceived++;
      c.listener.onNewToken(c, token);
    }
  }

  @Override
  public void onResetStream(ResetStreamFrame f) {
    if (established(FrameType.RESET_STREAM)) {
      TransportError e = c.streams.onResetStream(f);
      if (e != null) {
        fail(e, FrameType.RESET_STREAM, "stream " + f.streamId);
      }
    }
  }

  @Override
  public void onStopSending(StopSendingFrame f) {
    if (established(FrameType.STOP_SENDING)) {
      TransportError e = c.streams.onStopSending(f.streamId, f.applicationErrorCode);
      if (e != null) {
        fail(e, FrameType.STOP_SENDING, "stream " + f.streamId);
      }
    }
  }

  @Override
  public void onMaxData(MaxDataFrame f) {
    c.streams.onMaxData(f.maximumData);
  }

  @Override
  public void onMaxStreamData(MaxStreamDataFrame f) {
    if (established(FrameType.MAX_STREAM_DATA)) {
      TransportError e = c.streams.onMaxStreamData(f.streamId, f.maximumStreamData);
      if (e != null) {
        fail(e, FrameType.MAX_STREAM_DATA, "stream " + f.streamId);
      }
    }
  }

  @Override
  public void onMaxStreams(MaxStreamsFrame f) {
    if (f.maximumStreams > TransportParameters.MAX_STREAM_COUNT) {
      // RFC 9000 §19.11: a count above 2^60 is a FRAME_ENCODING_ERROR.
      fail(TransportError.FRAME_ENCODING_ERROR, FrameType.MAX_STREAMS,
          "MAX_STREAMS above 2^60: " + f.maximumStreams);
      return;
    }
    c.streams.onMaxStreams(f.maximumStreams);
  }

  @Override
  public void onDataBlocked(DataBlockedFrame f) {}

  @Override
  public void onStreamDataBlocked(StreamDataBlockedFrame f) {}

  @Override
  public void onNewConnectionId(NewConnectionIdFrame f) {
    // Version 1 endpoints keep their first connection ID; spare IDs are accepted and unused.
  }

  @Override
  public void onPathChallenge(PathChallengeFrame f) {
    c.pathResponsePending = true;
    c.pathResponseData = f.data;
  }

  @Override
  public void onPathResponse(PathResponseFrame f) {
    if (forbiddenInZeroRtt(FrameType.PATH_RESPONSE)) {
      return;
    }
    // RFC 9000 §8.2.3: the response validates the path its challenge was sent on, whichever
    // path it arrives on; one for a path already abandoned matches nothing.
    if (c.path.challengeOutstanding && f.data == c.path.challengeData) {
      c.onPathValidated(); // a copy of the challenge queued meanwhile is not needed
    }
  }

  @Override
  public void onConnectionClose(ConnectionCloseFrame f) {
    TransportError e = f.application ? TransportError.APPLICATION_ERROR
        : TransportError.of(f.errorCode);
    c.onPeerClose(e, f.errorCode, f.reason());
  }

  /**
   * The server's handshake completes, and is confirmed, on the client's first 1-RTT packet
   * (docs/protocol.md §4; RFC 9001 §4.1.2): from then on the client's ACK delays are capped at
   * its max_ack_delay (RFC 9002 §5.3) and the probe timeout includes it (§6.2.1).
   */
  void onClientOneRtt() {
    TransportParameters p = c.handshake.peer();
    if (c.isClient || c.handshakeConfirmed || p == null) {
      return;
    }
    c.handshakeConfirmed = true;
    c.keys.onHandshakeConfirmed();
    c.keys.onClientOneRtt();
    c.loss.setPeerMaxAckDelay(Saturating.msToNs(p.maxAckDelayMs), true);
    IssuedTicket.issue(c); // docs/protocol.md §9.10: once the handshake is confirmed
  }

  @Override
  public void onNewTicket(NewTicketFrame f) {
    if (forbiddenInZeroRtt(FrameType.NEW_TICKET)) {
      return;
    }
    String e = IssuedTicket.onNewTicket(c, f);
    if (e != null) {
      fail(TransportError.PROTOCOL_VIOLATION, FrameType.NEW_TICKET, e);
    }
  }

  @Override
  public void onHandshakeDone() {
    if (forbiddenInZeroRtt(FrameType.HANDSHAKE_DONE)) {
      return;
    }
    if (!c.isClient) {
      fail(TransportError.PROTOCOL_VIOLATION, FrameType.HANDSHAKE_DONE, "HANDSHAKE_DONE from client");
      return;
    }
    if (!c.handshakeConfirmed) {
      c.handshakeConfirmed = true;
      c.keys.onHandshakeConfirmed();
      c.loss.setArmWithoutInFlight(false);
      TransportParameters p = c.handshake.peer();
      c.loss.setPeerMaxAckDelay(p == null ? 25_000_000L : Saturating.msToNs(p.maxAckDelayMs),
          true);
    }
  }

  // ---- SentFrameSink --------------------------------------------------------------------------

  @Override
  public void onFrameAcked(byte type, long a, long b, int length) {
    if (c.streamWriter.onAcked(type, a, b, length, c.listener)) {
      return;
    }
    if (type == SentFrameType.CRYPTO) {
      c.handshake.onPeerHasIt();
    } else if (type == SentFrameType.HANDSHAKE_DONE) {
      c.handshakeDoneAcked = true;
    } else if (type == SentFrameType.NEW_TICKET && c.issuedTicket != null) {
      c.issuedTicket.acked = true;
      c.issuedTicket.pending = false;
    } else if (type == SentFrameType.NEW_TOKEN) {
      c.newToken = null; // delivered: nothing to send again
    } else if (type == SentFrameType.PATH_CHALLENGE && c.path.challengeOutstanding
        && a == c.path.challengeData) {
      // The challenge arrived; its PATH_RESPONSE comes in the same packet as this ACK (after
      // it), unless that was lost: then the challenge goes again (RFC 9000 §8.2.1), since a
      // PATH_RESPONSE is never retransmitted. A response processed next cancels the copy.
      c.path.challengePending = true;
    }
  }

  @Override
  public void onFrameLost(byte type, long a, long b, int length) {
    if (type == SentFrameType.STREAM || type == SentFrameType.STREAM_FIN) {
      c.retransmitQueued = true;
    }
    if (c.streamWriter.onLost(type, a, b, length)) {
      return;
    }
    if (type == SentFrameType.CRYPTO) {
      c.handshake.onLost();
    } else if (type == SentFrameType.HANDSHAKE_DONE && !c.handshakeDoneAcked) {
      c.handshakeDonePending = true;
    } else if (type == SentFrameType.NEW_TICKET && c.issuedTicket != null) {
      c.issuedTicket.onLost();
    } else if (type == SentFrameType.NEW_TOKEN && c.newToken != null) {
      c.newTokenPending = true; // RFC 9000 §13.3: sent again until acknowledged
    } else if (type == SentFrameType.PATH_CHALLENGE && c.path.challengeOutstanding
        && a == c.path.challengeData) {
      // RFC 9000 §8.2.1: a lost challenge is sent again (PATH_RESPONSE never is), so that one
      // lost datagram does not leave the new path unvalidated.
      c.path.challengePending = true;
    }
  }
}
