package dev.tern.transport.udp.connection;

/** The life of a connection (RFC 9000 §10). */
public enum ConnectionState {
  /** The handshake is under way. */
  HANDSHAKING,
  /** The handshake completed: 1-RTT packets flow. */
  ESTABLISHED,
  /**
   * We closed it: for three PTOs we answer what arrives with CONNECTION_CLOSE again, at a
   * falling rate (RFC 9000 §10.2.1).
   */
  CLOSING,
  /** The peer closed it: we stay silent for three PTOs. */
  DRAINING,
  /** Gone: nothing is sent or accepted. */
  CLOSED
}
