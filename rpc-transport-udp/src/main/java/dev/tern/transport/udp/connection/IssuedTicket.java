package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.frame.NewTicketFrame;
import dev.tern.transport.udp.handshake.ClientHandshake;
import dev.tern.transport.udp.handshake.HandshakeSecrets;
import dev.tern.transport.udp.handshake.TicketStore;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.recovery.SentPacketLog;
import dev.tern.transport.udp.recovery.SentFrameType;
import java.nio.ByteBuffer;

/**
 * Resumption tickets on a connection (docs/protocol.md §9.10): the server issues one once the
 * handshake is confirmed and sends it in a NEW_TICKET frame until acknowledged; the client
 * derives the ticket's PSK from the nonce and hands the application a {@link SessionTicket}.
 * Runs once per connection, off the per-packet path: it allocates.
 */
final class IssuedTicket {
  /** Bytes of the nonce of each ticket: unique per ticket (RFC 8446 §4.6.1's ticket_nonce). */
  static final int NONCE_BYTES = 16;

  final long lifetimeMillis;
  final long maxEarlyDataBytes;
  final byte[] nonce;
  final byte[] ticketId;
  boolean pending = true;
  boolean acked;

  private IssuedTicket(long lifetimeMillis, long maxEarlyDataBytes, byte[] nonce,
      byte[] ticketId) {
    this.lifetimeMillis = lifetimeMillis;
    this.maxEarlyDataBytes = maxEarlyDataBytes;
    this.nonce = nonce;
    this.ticketId = ticketId;
  }

  /**
   * A server whose configuration has a ticket store issues the connection's ticket, once its
   * handshake is confirmed (the client's first 1-RTT packet): {@code psk = ticketPsk(nonce)}
   * under this connection's resumption secret, stored by the ticket store for the client's
   * proved static key. The early-data limit is capped at the connection window, so that data
   * a rejecting server later sees again stays within its flow control.
   */
  static void issue(Connection c) {
    TicketStore store = c.config.ticketStore;
    if (c.isClient || store == null || c.issuedTicket != null
        || !Versions.isEncrypted(c.version) || c.keys.crypto == null
        || !c.keys.crypto.isFinished()) {
      return;
    }
    byte[] nonce = new byte[NONCE_BYTES];
    c.random.nextBytes(nonce);
    HandshakeSecrets s = c.keys.crypto.secrets();
    byte[] id = store.issue(s.ticketPsk(nonce), c.keys.crypto.peerStaticKey());
    if (id == null || id.length == 0 || id.length > 255) {
      return;
    }
    long maxEarly = Math.min(c.config.maxEarlyDataBytes, c.config.limits.connectionWindowBytes);
    c.issuedTicket = new IssuedTicket(Math.max(0, store.lifetimeMillis()), maxEarly, nonce, id);
    c.stats.tickets++;
  }

  /** Bytes its NEW_TICKET frame takes. */
  int frameBytes() {
    return NewTicketFrame.encodedLength(lifetimeMillis, maxEarlyDataBytes, nonce.length,
        ticketId.length);
  }

  /** Writes the NEW_TICKET frame and records it for recovery. */
  void write(ByteBuffer out, SentPacketLog log) {
    NewTicketFrame.encode(out, lifetimeMillis, maxEarlyDataBytes, nonce, ticketId);
    log.addFrame(SentFrameType.NEW_TICKET, 0, 0, 0);
    pending = false;
  }

  /** A packet with the frame was lost: it goes again unless acknowledged since. */
  void onLost() {
    if (!acked) {
      pending = true;
    }
  }

  /**
   * A client's NEW_TICKET: derives the PSK from the nonce and the connection's resumption
   * secret, and hands the ticket to the listener with what a resumption needs.
   *
   * @return null if fine, else the reason for a PROTOCOL_VIOLATION
   */
  static String onNewTicket(Connection c, NewTicketFrame f) {
    if (!c.isClient) {
      return "NEW_TICKET from a client";
    }
    HandshakeCrypto crypto = c.keys.crypto;
    if (crypto == null || !crypto.isFinished() || crypto.clientSide() == null) {
      return "NEW_TICKET without a finished encrypted handshake";
    }
    if (java.util.Arrays.equals(f.ticketId(), c.lastTicketIdReceived)) {
      return null; // the same ticket again, its frame sent again after a spurious loss
    }
    c.lastTicketIdReceived = f.ticketId();
    ClientHandshake hs = crypto.clientSide();
    HandshakeSecrets s = crypto.secrets();
    TransportParameters peer = c.handshake.peer();
    AeadAlgorithm cipher = s.aead();
    SessionTicket t = new SessionTicket(f.ticketId(), s.ticketPsk(f.nonce()),
        hs.staticPrivateKey(), hs.serverKey(), cipher, f.lifetimeMillis,
        c.config.wallClock.getAsLong(), f.maxEarlyDataBytes,
        c.rtt.hasSample() ? c.rtt.smoothedRttNs() : 0, peer.initialMaxData,
        peer.initialMaxStreamData, peer.initialMaxStreams);
    c.stats.tickets++;
    c.listener.onTicket(c, t);
    return null;
  }
}
