package dev.tern.transport.udp.frame;

/** The transport error codes of CONNECTION_CLOSE (docs/protocol.md §6; RFC 9000 §20.1). */
public enum TransportError {
  /** Graceful close. */
  NO_ERROR(0x0),
  /** An implementation error. */
  INTERNAL_ERROR(0x1),
  /** The server refuses the connection. */
  CONNECTION_REFUSED(0x2),
  /** More data than advertised. */
  FLOW_CONTROL_ERROR(0x3),
  /** A stream beyond MAX_STREAMS. */
  STREAM_LIMIT_ERROR(0x4),
  /** A frame for a stream in a state that forbids it. */
  STREAM_STATE_ERROR(0x5),
  /** A final size that changes or is exceeded. */
  FINAL_SIZE_ERROR(0x6),
  /** A frame that does not parse or an unknown type. */
  FRAME_ENCODING_ERROR(0x7),
  /** Transport parameters that do not parse or are invalid. */
  TRANSPORT_PARAMETER_ERROR(0x8),
  /** RFC 9000 §8.1.3: a Retry token that is expired or for another address. */
  INVALID_TOKEN(0xb),
  /** Any other violation of the protocol. */
  PROTOCOL_VIOLATION(0xa),
  /** Handshake data beyond the buffer. */
  CRYPTO_BUFFER_EXCEEDED(0xd),
  /** RFC 9001 §6.6: too many packets failed authentication, or a key sealed its limit. */
  AEAD_LIMIT_REACHED(0xf),
  /**
   * The handshake failed (RFC 9000 §20.1: 0x0100-0x01ff, 0x0100 plus a TLS alert, RFC 9001 §4.8);
   * the connection's close code carries the exact value.
   */
  CRYPTO_ERROR(0x100),
  /** No version in common. */
  VERSION_NEGOTIATION_ERROR(0x11),
  /** The application closed the connection (APPLICATION_CLOSE). */
  APPLICATION_ERROR(0xc),
  /** Local only: the idle timeout expired; never sent (its code is outside the wire's use). */
  IDLE_TIMEOUT(-1),
  /**
   * Local only: a keep-alive PING went unanswered for the keep-alive timeout; never sent (its
   * code is outside the wire's use).
   */
  KEEP_ALIVE_TIMEOUT(-2),
  /**
   * Local only: nothing was heard from the peer over three consecutive probe timeouts (RFC 9002
   * §6.2) with packets awaiting acknowledgement: the peer is gone (crashed, restarted, or the path
   * died); never sent.
   */
  PEER_UNRESPONSIVE(-3),
  /**
   * Local only: the peer sent a stateless reset (RFC 9000 §10.3) with the connection's token: it
   * no longer has the connection (it restarted); never sent.
   */
  STATELESS_RESET(-4);

  private final long code;

  TransportError(long code) {
    this.code = code;
  }

  /** The wire code. */
  public long code() {
    return code;
  }

  /** The enum constant for a wire code; unknown codes map to {@link #INTERNAL_ERROR}. */
  public static TransportError of(long code) {
    if (code >= 0x100 && code <= 0x1ff) {
      return CRYPTO_ERROR;
    }
    for (TransportError e : values()) {
      if (e.code == code) {
        return e;
      }
    }
    return INTERNAL_ERROR;
  }
}
