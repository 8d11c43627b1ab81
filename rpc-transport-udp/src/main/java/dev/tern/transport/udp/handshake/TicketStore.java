package dev.tern.transport.udp.handshake;

/**
 * The server's side of resumption: what it issued under a ticket id. Replay protection lives
 * here (RFC 8446 §8: single-use tickets or a strike register, and a ticket-age window across
 * instances): {@link #consume} answers false for a ticket already used.
 */
public interface TicketStore {

  /** A ticket as the server keeps it. */
  record Stored(byte[] psk, byte[] clientStaticPublicKey) {}

  /** The ticket called {@code ticketId}, or null if unknown or expired; does not consume it. */
  Stored find(byte[] ticketId);

  /**
   * Marks the ticket used, once the ClientHello naming it has authenticated.
   *
   * @return false if it had been used already (a replayed ClientHello)
   */
  boolean consume(byte[] ticketId);
}
