package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.EpochPacketKeys;
import dev.tern.transport.udp.crypto.KeyLabels;
import dev.tern.transport.udp.crypto.OneRttPacketKeys;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.handshake.HandshakeException;
import dev.tern.transport.udp.handshake.HandshakeSecrets;
import dev.tern.transport.udp.handshake.TicketStore;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PlaintextProtection;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.util.Saturating;

/**
 * A connection's packet protection over its life (docs/protocol.md §9, docs/udp-crypto.md §6):
 * which keys each packet-number space uses, the Noise handshake that produces the 1-RTT keys,
 * and what the 1-RTT keys must learn for key update (RFC 9001 §6.1). Version 1 puts a checksum
 * in every space and runs no handshake cryptography. On the connection's thread.
 */
final class ConnectionKeys {
  private final Connection c;
  /** The Noise handshake (encrypted version), or null (version 1's plaintext). */
  HandshakeCrypto crypto;
  /**
   * The 0-RTT keys of a resumption (RFC 9001 §4.6, docs/udp-crypto.md §6): a resuming client's
   * write keys from its IKpsk2 ClientHello until it has the 1-RTT keys; a server's read keys
   * from the ClientHello, if it accepted the early data, until the client's first 1-RTT packet
   * (RFC 9001 §4.9.3). Null otherwise.
   */
  EpochPacketKeys zeroRtt;
  /** The 1-RTT keys once the handshake has produced them (encrypted version), else null. */
  OneRttPacketKeys oneRtt;
  /**
   * Packets one 1-RTT write key seals before a key update is started, and at most (RFC 9001
   * §6.6); 0 for the AEAD's own limits. Set before the handshake finishes (tests use small
   * values to see key updates happen on a short connection).
   */
  long updateAfterPackets;
  /** See {@link #updateAfterPackets}; both are set, or neither. */
  long confidentialityLimitPackets;
  /** When the previous 1-RTT read keys are discarded (RFC 9001 §6.1), or Long.MAX_VALUE. */
  private long discardPreviousReadNs = Long.MAX_VALUE;
  /** The read generation the discard timer was last started for. */
  private long readGenerationSeen;

  ConnectionKeys(Connection c) {
    this.c = c;
  }

  /**
   * Sets up the client's handshake of the connection's version: protection of the Initial space,
   * the Noise state for the client's first INITIAL, and the ClientHello queued (again, after
   * Version Negotiation: the version is in the Noise prologue).
   */
  void startClient() {
    byte[] params = Handshake.encode(c.localParameters(TransportParameters.CLIENT_HELLO));
    if (!Versions.isEncrypted(c.version)) {
      usePlaintext();
      crypto = null;
      c.handshake.setLocalMessage(params);
      return;
    }
    c.initialSpace.protection = HandshakeCrypto.initialKeys(c.config.cryptoProvider,
        c.originalDcid, true);
    c.appSpace.protection = null;
    crypto = HandshakeCrypto.client(c.config, c.version, c.originalDcid, c.localCid);
    try {
      c.handshake.setLocalMessage(crypto.writeLocal(params));
    } catch (HandshakeException e) {
      throw new IllegalStateException("the ClientHello cannot be written: " + e.getMessage(), e);
    }
    zeroRtt = null;
    SessionTicket t = HandshakeCrypto.usableTicket(c.config);
    if (t != null) {
      c.rtt.seed(t.smoothedRttNs()); // docs/protocol.md §4.1, "Resumed connections"
    }
    byte[] early = crypto.earlySecret();
    if (t != null && early != null && t.maxEarlyDataBytes() > 0) {
      // RFC 9000 §7.4.1: the server's remembered limits apply until its ServerHello gives the
      // current ones (a server accepting early data keeps them at least as large).
      zeroRtt = HandshakeSecrets.earlyDataKeys(c.config.cryptoProvider, t.cipher(), early, true);
      // The early-data limit itself is kept by the packet builder (0-RTT stream bytes).
      c.streams.setPeerLimits(t.peerInitialMaxData(), t.peerInitialMaxStreamData(),
          t.peerInitialMaxStreams());
    }
  }

  /** Whether a resuming client may send 0-RTT packets now. */
  boolean canSendZeroRtt() {
    return zeroRtt != null && c.isClient && oneRtt == null;
  }

  /**
   * The server's decision on a resumed client's early data, before it writes its ServerHello
   * (docs/protocol.md §9.10): accepted only if the ticket authenticated and was consumed here for
   * the first time (a ticket used before still completes the handshake), the store finds the
   * client's stated age
   * fresh (RFC 8446 §8.3, the window across instances) and the server takes early data at all;
   * otherwise rejected, and the handshake still completes. Sets {@link #zeroRtt}'s read keys
   * when accepted.
   */
  void decideEarlyData(TransportParameters peer) {
    byte[] early = crypto == null ? null : crypto.earlySecret();
    if (early == null || c.isClient) {
      return; // not a resumption
    }
    TicketStore store = c.config.ticketStore;
    TicketStore.Stored ticket = crypto.resumedTicket();
    boolean accept = c.config.maxEarlyDataBytes > 0 && store != null && ticket != null
        && !crypto.ticketReused() && peer.ticketAgeMillis >= 0 && store.earlyDataFresh(ticket, peer.ticketAgeMillis);
    if (accept) {
      zeroRtt = HandshakeSecrets.earlyDataKeys(c.config.cryptoProvider, crypto.cipher(), early,
          false);
      c.earlyData = TransportParameters.EARLY_DATA_ACCEPTED;
      c.stats.earlyDataAccepted++;
    } else {
      c.earlyData = TransportParameters.EARLY_DATA_REJECTED;
      c.stats.earlyDataRejected++;
    }
  }

  /**
   * The client read the server's answer to its resumption: 0-RTT keys go (RFC 9001 §4.9.3, it
   * has its 1-RTT keys), and on a rejection every 0-RTT packet is treated as lost without a
   * congestion signal, so its streams' data goes again in 1-RTT packets and no stream is reset
   * (RFC 9001 §4.6.2). A server that does not answer the resumption rejected it.
   */
  void onServerEarlyData(TransportParameters peer) {
    boolean resumed = crypto != null && crypto.earlySecret() != null;
    zeroRtt = null;
    if (!resumed) {
      return;
    }
    if (peer.earlyData == TransportParameters.EARLY_DATA_ACCEPTED) {
      c.earlyData = TransportParameters.EARLY_DATA_ACCEPTED;
      c.stats.earlyDataAccepted++;
    } else {
      c.earlyData = TransportParameters.EARLY_DATA_REJECTED;
      c.stats.earlyDataRejected++;
      // Only 0-RTT packets are in the application space yet: the 1-RTT keys came just now.
      c.appSpace.loss.discardAll();
    }
  }

  /** RFC 9001 §4.9.3: the server's 0-RTT keys go at the client's first 1-RTT packet. */
  void onClientOneRtt() {
    if (!c.isClient) {
      zeroRtt = null;
    }
  }

  /**
   * Sets up the server's side for the client's first INITIAL: {@code initialKeys} are the ones
   * the endpoint derived to open it (RFC 9001 §5.2), or null to derive them here.
   */
  void startServer(EpochPacketKeys initialKeys) {
    if (!Versions.isEncrypted(c.version)) {
      usePlaintext();
      return;
    }
    c.initialSpace.protection = initialKeys != null ? initialKeys
        : HandshakeCrypto.initialKeys(c.config.cryptoProvider, c.originalDcid, false);
    // The prologue binds the client's first INITIAL, from before any Retry
    // (docs/udp-crypto.md §5.2).
    crypto = HandshakeCrypto.server(c.config, c.version, c.handshakeDcid, c.peerCid);
  }

  /**
   * The client accepted a Retry (RFC 9000 §17.2.5.2): its Initial keys now come from the Retry's
   * Source Connection ID, its new Destination Connection ID (RFC 9001 §5.2). The Noise state and
   * the ClientHello stay as they were: their prologue binds the first INITIAL's connection IDs,
   * which the server reads back from its Retry token (docs/udp-crypto.md §5.2).
   */
  void onRetry(ConnectionId newDcid) {
    if (Versions.isEncrypted(c.version)) {
      c.initialSpace.protection = HandshakeCrypto.initialKeys(c.config.cryptoProvider, newDcid,
          true);
    }
  }

  /** Version 1: a checksum in every space, no keys (docs/protocol.md §5). */
  private void usePlaintext() {
    c.initialSpace.protection = new PlaintextProtection();
    c.appSpace.protection = new PlaintextProtection();
  }

  /**
   * Queues the server's handshake message answering the client's; in the encrypted version,
   * writing the ServerHello finishes the Noise handshake and the server's 1-RTT keys come into
   * use (RFC 9001 §4.1.4: a server may send 1-RTT data right after its last handshake message).
   *
   * @return false if the message could not be written (the connection is closing)
   */
  boolean answerHandshake() {
    byte[] params = Handshake.encode(c.localParameters(TransportParameters.SERVER_HELLO));
    if (crypto == null) {
      c.handshake.setLocalMessage(params);
      return true;
    }
    try {
      c.handshake.setLocalMessage(crypto.writeLocal(params));
    } catch (HandshakeException | IllegalArgumentException e) {
      c.closeWithError(TransportError.INTERNAL_ERROR, 0, "the ServerHello cannot be written: "
          + e.getMessage());
      return false;
    }
    installOneRtt();
    return true;
  }

  /** Whether the client has just read an authentic ServerHello and needs its 1-RTT keys. */
  boolean clientHandshakeFinished() {
    return c.isClient && crypto != null && crypto.isFinished() && oneRtt == null;
  }

  /** Moves the finished Noise handshake's 1-RTT keys into use (docs/udp-crypto.md §6). */
  void installOneRtt() {
    HandshakeSecrets s = crypto.secrets();
    if (confidentialityLimitPackets > 0) {
      oneRtt = new OneRttPacketKeys(c.config.cryptoProvider, s.aead(), KeyLabels.TERN_V1,
          c.isClient ? s.server1RttSecret() : s.client1RttSecret(),
          c.isClient ? s.client1RttSecret() : s.server1RttSecret(), updateAfterPackets,
          confidentialityLimitPackets);
    } else {
      oneRtt = s.oneRttKeys(c.isClient);
    }
    c.appSpace.protection = oneRtt;
  }

  /**
   * After a 1-RTT packet opened: if it was the first of a new read generation (the peer's key
   * update, or its answer to ours), the previous generation's read keys go three probe timeouts
   * from now (RFC 9001 §6.1: kept a while for reordered packets, §6.5, then discarded). A
   * further update restarts the timer; the keys then dropped are the generation before it.
   */
  void onOneRttOpened() {
    if (oneRtt != null && oneRtt.readGeneration() != readGenerationSeen) {
      readGenerationSeen = oneRtt.readGeneration();
      discardPreviousReadNs = Saturating.add(c.nowNs, c.threePtoNs());
    }
  }

  /** When {@link #onTimeout} has keys to discard, or {@code Long.MAX_VALUE}. */
  long nextTimeoutNs() {
    return discardPreviousReadNs;
  }

  /** Discards the previous 1-RTT read keys once their time is up. */
  void onTimeout(long nowNs) {
    if (nowNs >= discardPreviousReadNs) {
      discardPreviousReadNs = Long.MAX_VALUE;
      oneRtt.discardPreviousReadKeys();
    }
  }

  /** RFC 9001 §6.1: key updates may start once the handshake is confirmed. */
  void onHandshakeConfirmed() {
    if (oneRtt != null) {
      oneRtt.onHandshakeConfirmed();
    }
  }

  /** RFC 9001 §6.1: a key update waits for an acknowledgement of the current keys' packets. */
  void onOneRttAcknowledged(long largestAckedPn) {
    if (oneRtt != null) {
      oneRtt.onPacketAcknowledged(largestAckedPn);
    }
  }
}
