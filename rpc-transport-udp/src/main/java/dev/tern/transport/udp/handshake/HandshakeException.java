package dev.tern.transport.udp.handshake;

/**
 * A handshake that cannot go on. Every failure of a peer's message, whatever its cause, comes out
 * as this one type, with an {@link HandshakeError} the connection closes with.
 */
public final class HandshakeException extends Exception {
  private static final long serialVersionUID = 1L;
  private final HandshakeError error;

  /** A failure of kind {@code error}, described by {@code message}. */
  public HandshakeException(HandshakeError error, String message) {
    super(error + ": " + message);
    this.error = error;
  }

  /** The kind of failure. */
  public HandshakeError error() {
    return error;
  }
}
