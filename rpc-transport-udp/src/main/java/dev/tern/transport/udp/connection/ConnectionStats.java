package dev.tern.transport.udp.connection;

/** A connection's counters (plain fields, updated on its thread; read them there too). */
public final class ConnectionStats {
  /** Datagrams produced by {@code pollDatagram}. */
  public long packetsSent;
  /** Bytes of those datagrams. */
  public long bytesSent;
  /** Packets accepted (authentic, not duplicate). */
  public long packetsReceived;
  /** Bytes of datagrams handed to {@code onDatagram}. */
  public long bytesReceived;
  /** Ack-eliciting packets declared lost. */
  public long packetsLost;
  /** Of those, declared later than RFC 9002 §6.1 makes them due (a loss-detection defect). */
  public long lossesDeclaredLate;
  /** Packets that carried retransmitted stream data. */
  public long packetsRetransmitted;
  /** Packets dropped because their header or frames did not parse. */
  public long malformedDropped;
  /**
   * Packets dropped because they did not open (RFC 9001 §5.5): corrupted, forged, sealed with
   * other keys, or too short for the header-protection sample.
   */
  public long packetsFailedToOpen;
  /** Packets dropped because this side has no keys for their epoch yet (RFC 9001 §5.7). */
  public long noKeysDropped;
  /** Copies of the first handshake datagram sent (docs/protocol.md §4.1). */
  public long handshakeCopiesSent;
  /** Copies of the first datagram carrying stream data sent (docs/protocol.md §4.1). */
  public long firstDataCopiesSent;
  /** Packets dropped as duplicates. */
  public long duplicatesDropped;
  /** Packets dropped for naming an unknown connection or an unusable state. */
  public long unroutableDropped;
  /** Probe timeouts. */
  public long ptoCount;
  /** Keep-alive PINGs sent (IdlePolicy: quiet for the keep-alive interval). */
  public long keepAlivePingsSent;
  /** Stateless resets received that carried this connection's token (RFC 9000 §10.3.1). */
  public long statelessResetsReceived;
  /** PINGs sent to check a quiet connection before a call went out on it. */
  public long quietCheckPingsSent;
  /** 1 once the connection was discarded for a peer that stopped answering ({@code PEER_UNRESPONSIVE}). */
  public long peerUnresponsiveCloses;
  /**
   * PINGs sent because a call waited and nothing arrived for a probe timeout (backed off): they
   * show the server the client's current address after a NAT rebinding (docs/protocol.md §8).
   */
  public long waitingPingsSent;
  /** ACK frames received that carried receive timestamps. */
  public long timestampedAcksReceived;
  /**
   * Changes of this client's own address its driver reported ({@code onLocalAddressChanged}):
   * the socket could no longer send and was replaced by one sending from the new address.
   */
  public long localAddressChanges;
  /** Datagrams the driver could not send (no socket could send from any address at the time). */
  public long datagramsUnsent;
  /** Path changes followed. */
  public long pathChanges;
  /**
   * Path changes confirmed by PATH_RESPONSE, each of which reset the RTT estimate and the
   * congestion controller (RFC 9000 §9.4).
   */
  public long pathsValidated;
  /**
   * Of those, the changes to another host (or of unknown kind), which reset the RTT estimate
   * and the congestion controller (RFC 9000 §9.4); a change of port alone keeps them.
   */
  public long pathResets;
  /**
   * Path validations abandoned for want of a PATH_RESPONSE (RFC 9000 §8.2.4), after which the
   * connection returned to the last validated path (§9.3.2).
   */
  public long pathValidationsFailed;
  /**
   * Datagrams held back by the anti-amplification budget of a path being validated (RFC 9000
   * §9.3: at most three times the bytes received on it): each time something waited to be sent
   * and the budget allowed not even a short datagram, counted once until the budget grew or the
   * path was validated.
   */
  public long datagramsHeldByPathBudget;
  /**
   * Bytes by which datagrams to a path being validated were cut short of the datagram size so as
   * to stay within its budget (RFC 9000 §8.2.1, §9.3).
   */
  public long bytesTrimmedByPathBudget;
  /**
   * INITIAL packets dropped for carrying a frame other than CRYPTO, ACK, PING, PADDING or
   * CONNECTION_CLOSE (RFC 9000 §17.2.2).
   */
  public long forbiddenFramesDropped;
  /** Packets dropped because their packet-number space was already discarded (RFC 9001 §4.9). */
  public long discardedSpaceDropped;
  /**
   * 1-RTT packets of the previous key phase dropped because they arrived after those read keys
   * were discarded, three PTOs after the key update (RFC 9001 §6.1); late, not forged, so not
   * in {@link #packetsFailedToOpen}.
   */
  public long oldKeysDropped;
  /**
   * CONNECTION_CLOSE answers the closing state did not send because the anti-amplification
   * limit (RFC 9000 §8.1) did not allow them.
   */
  public long closesBlockedByAmplificationLimit;
  /**
   * Resumptions whose early data the server accepted (docs/protocol.md §9.10): counted on both
   * sides, 0 or 1 per connection.
   */
  public long earlyDataAccepted;
  /**
   * Resumptions whose early data the server rejected (the client sent it again in 1-RTT
   * packets, RFC 9001 §4.6.2): counted on both sides, 0 or 1 per connection.
   */
  public long earlyDataRejected;
  /** 0-RTT packets sent (client) or opened and processed (server). */
  public long zeroRttPackets;
  /**
   * 0-RTT packets the server dropped unopened: early data rejected, no resumption, or after it
   * discarded its 0-RTT keys (RFC 9001 §4.9.3), or 0-RTT past the early-data limit.
   */
  public long zeroRttDropped;
  /** Tickets issued (server) or received (client) on this connection. */
  public long tickets;
  /** Retry packets a client accepted (RFC 9000 §17.2.5.2: at most one). */
  public long retriesAccepted;
  /**
   * Retry packets a client discarded: a second one, one after another packet of the server's,
   * a bad integrity tag, an empty token, or the Source Connection ID it had sent to.
   */
  public long retriesDiscarded;
  /** NEW_TOKEN tokens a client received and handed to its listener. */
  public long newTokensReceived;

  @Override
  public String toString() {
    return "sent=" + packetsSent + "/" + bytesSent + "B recv=" + packetsReceived + "/"
        + bytesReceived + "B lost=" + packetsLost + " retx=" + packetsRetransmitted
        + " malformed=" + malformedDropped + " failedToOpen=" + packetsFailedToOpen + " dup="
        + duplicatesDropped + " pto=" + ptoCount;
  }
}
