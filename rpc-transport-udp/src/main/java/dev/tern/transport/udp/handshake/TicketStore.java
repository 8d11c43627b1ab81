package dev.tern.transport.udp.handshake;

/**
 * The server's side of resumption: the tickets it issues and what it finds under a ticket id.
 * Replay protection lives here (RFC 8446 §8): {@link #consume} answers false for a ticket already
 * used in this instance (single-use tickets, or a strike register), and {@link #earlyDataFresh}
 * bounds replays across instances that share the ticket keys by a ticket-age window (§8.3).
 */
public interface TicketStore {

  /**
   * A ticket as the server finds it.
   *
   * @param psk the 32-byte pre-shared key
   * @param clientStaticPublicKey the static public key of the client it was issued to
   * @param issuedAtMillis when it was issued, in the store's clock
   */
  record Stored(byte[] psk, byte[] clientStaticPublicKey, long issuedAtMillis) {}

  /** The ticket called {@code ticketId}, or null if unknown or expired; does not consume it. */
  Stored find(byte[] ticketId);

  /**
   * Marks the ticket used, once the ClientHello naming it has authenticated.
   *
   * @return false if it had been used already (a replayed ClientHello) or cannot be recorded:
   *     the handshake then completes without early data
   */
  boolean consume(byte[] ticketId);

  /**
   * Issues a ticket for a finished connection.
   *
   * @param psk the ticket's pre-shared key (HandshakeSecrets.ticketPsk of the ticket's nonce)
   * @param clientStaticPublicKey the static public key the client proved on that connection
   * @return the ticket id to send the client (1..255 bytes), or null if this store issues none
   */
  default byte[] issue(byte[] psk, byte[] clientStaticPublicKey) {
    return null;
  }

  /** How long a ticket issued now stays valid, in milliseconds (0 if the store issues none). */
  default long lifetimeMillis() {
    return 0;
  }

  /**
   * Whether early data may be accepted on a resumption with {@code ticket} from a client that
   * says it has held the ticket for {@code clientAgeMillis}: the client's age and the server's
   * own agree within the store's window (RFC 8446 §8.3). A captured first flight replayed later
   * than the window to any instance is refused.
   */
  default boolean earlyDataFresh(Stored ticket, long clientAgeMillis) {
    return false;
  }
}
