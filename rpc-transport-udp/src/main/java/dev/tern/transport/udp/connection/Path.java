package dev.tern.transport.udp.connection;

/**
 * One network path of a {@link Connection}, as the driver numbers it: whether the peer's address
 * on it is validated, the anti-amplification budget until it is (RFC 9000 §8.1, §8.2.1, §9.3),
 * and the PATH_CHALLENGE that validates it (RFC 9000 §8.2). A connection has two, reused: the
 * path it sends on and the last validated one it returns to if validation fails (§9.3.2), so a
 * move allocates nothing.
 *
 * <p>The budget: until the path is validated, the bytes sent on it stay within three times the
 * bytes of the datagrams received on it in which a packet of the connection authenticated. The
 * handshake's path is validated as RFC 9000 §8.1 says (a token, a Retry, or a packet to the
 * server's connection ID); a later one only by a PATH_RESPONSE echoing its challenge (§8.2.2).
 */
final class Path {
  /** The driver's number for the peer's address on this path. */
  long id;
  /** Whether this is a path at all (the fallback slot may be empty). */
  boolean live;
  /** Whether the peer's address on this path is validated. */
  boolean validated;
  /** Bytes of authenticated datagrams received on this path while it was not validated. */
  long receivedBytes;
  /** Bytes sent on this path while it was not validated. */
  long sentBytes;
  /** The PATH_CHALLENGE data of this path's validation (RFC 9000 §8.2.1). */
  long challengeData;
  /** The challenge waits to be sent (first time, or again after a loss). */
  boolean challengePending;
  /** The challenge went out and its PATH_RESPONSE has not come. */
  boolean challengeOutstanding;
  /** When validation is abandoned (RFC 9000 §8.2.4); Long.MAX_VALUE with none in progress. */
  long validationDeadlineNs = Long.MAX_VALUE;
  /** A datagram held back by the budget was counted since the budget last changed. */
  boolean holdCounted;

  /** Makes this the path {@code id}, fresh: validated or not, nothing counted, no challenge. */
  void reset(long id, boolean validated) {
    this.id = id;
    this.live = true;
    this.validated = validated;
    receivedBytes = 0;
    sentBytes = 0;
    challengeData = 0;
    challengePending = false;
    challengeOutstanding = false;
    validationDeadlineNs = Long.MAX_VALUE;
    holdCounted = false;
  }

  /** Empties the slot. */
  void clear() {
    reset(0, false);
    live = false;
  }

  /** The peer's address on this path is proven (RFC 9000 §8.1, §8.2.3): no budget from now on. */
  void validate() {
    validated = true;
    challengePending = false;
    challengeOutstanding = false;
    validationDeadlineNs = Long.MAX_VALUE;
  }

  /**
   * RFC 9000 §8.1, §9.3: the bytes that may still be sent on this path, Long.MAX_VALUE once it is
   * validated.
   */
  long budget() {
    return validated ? Long.MAX_VALUE : 3 * receivedBytes - sentBytes;
  }

  /** An authenticated datagram of {@code bytes} came on this path. */
  void onReceived(int bytes) {
    if (!validated) {
      receivedBytes += bytes;
      holdCounted = false; // the budget grew: a hold from now on is a new one
    }
  }

  /** {@code bytes} were sent on this path. */
  void onSent(int bytes) {
    if (!validated) {
      sentBytes += bytes;
    }
  }
}
