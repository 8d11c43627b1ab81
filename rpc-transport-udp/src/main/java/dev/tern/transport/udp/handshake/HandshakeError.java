package dev.tern.transport.udp.handshake;

/**
 * Why a handshake failed. Each has a wire code in QUIC's CRYPTO_ERROR range (RFC 9000 §20.1:
 * 0x0100 + a TLS alert number, RFC 8446 §6), so the connection closes with a code a QUIC-minded
 * reader recognises.
 */
public enum HandshakeError {
  /** A message arrived when none, or another kind, was expected (a replay, a duplicate). */
  UNEXPECTED_MESSAGE(10),
  /** A message failed authentication: tampered, or sealed for another key (a wrong pin). */
  AUTHENTICATION_FAILED(20),
  /** The client proposed a cipher the server does not accept. */
  NO_COMMON_CIPHER(40),
  /** A peer's public key gives an all-zero X25519 result (RFC 7748 §6.1). */
  BAD_PUBLIC_KEY(47),
  /** The client asked for a server static key the server does not hold. */
  UNKNOWN_SERVER_KEY(48),
  /** The server does not accept this client's static key. */
  CLIENT_NOT_ALLOWED(49),
  /** A message is too short, too long or has an unknown type. */
  MALFORMED_MESSAGE(50),
  /**
   * The resumption ticket is unknown, expired, or issued to another client key (one already used
   * still resumes, its early data refused).
   */
  UNKNOWN_TICKET(115);

  private final int alert;

  HandshakeError(int alert) {
    this.alert = alert;
  }

  /** The CRYPTO_ERROR code for CONNECTION_CLOSE: 0x0100 + the TLS alert number. */
  public long wireCode() {
    return 0x100 + alert;
  }

  /** The error whose {@link #wireCode()} is {@code code}, or null if none is. */
  public static HandshakeError ofWireCode(long code) {
    for (HandshakeError e : values()) {
      if (e.wireCode() == code) {
        return e;
      }
    }
    return null;
  }
}
