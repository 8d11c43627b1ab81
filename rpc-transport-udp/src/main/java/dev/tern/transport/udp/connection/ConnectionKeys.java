package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.EpochPacketKeys;
import dev.tern.transport.udp.crypto.OneRttPacketKeys;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.handshake.HandshakeException;
import dev.tern.transport.udp.packet.PlaintextProtection;
import dev.tern.transport.udp.packet.Versions;

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
  /** The 1-RTT keys once the handshake has produced them (encrypted version), else null. */
  OneRttPacketKeys oneRtt;

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
    crypto = HandshakeCrypto.server(c.config, c.version, c.originalDcid, c.peerCid);
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
    oneRtt = crypto.secrets().oneRttKeys(c.isClient);
    c.appSpace.protection = oneRtt;
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
