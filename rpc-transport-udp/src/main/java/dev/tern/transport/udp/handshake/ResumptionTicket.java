package dev.tern.transport.udp.handshake;

/**
 * What a client keeps from an earlier connection to resume with IKpsk2: the ticket's opaque id,
 * which it sends in the clear, the pre-shared key both sides derived (docs/udp-crypto.md §6), and
 * the client static key of that connection, which the server checks, so that a ticket id seen
 * on the wire is of no use to anyone else.
 *
 * @param ticketId the server's id for the ticket, 1..255 bytes
 * @param psk the 32-byte pre-shared key
 * @param clientStaticKey the X25519 private key the client used on the connection that earned
 *     the ticket
 */
public record ResumptionTicket(byte[] ticketId, byte[] psk, byte[] clientStaticKey) {
  /** Checks the lengths. */
  public ResumptionTicket {
    if (ticketId == null || ticketId.length < 1 || ticketId.length > 255) {
      throw new IllegalArgumentException("ticketId must be 1..255 bytes, got "
          + (ticketId == null ? "null" : ticketId.length + " bytes"));
    }
    ticketId = ticketId.clone();
    psk = Keys.key32("psk", psk);
    clientStaticKey = Keys.key32("clientStaticKey", clientStaticKey);
  }

  @Override
  public byte[] ticketId() {
    return ticketId.clone();
  }

  @Override
  public byte[] psk() {
    return psk.clone();
  }

  @Override
  public byte[] clientStaticKey() {
    return clientStaticKey.clone();
  }

  @Override
  public String toString() {
    return "ResumptionTicket[" + ticketId.length + "-byte id]"; // never the keys
  }
}
