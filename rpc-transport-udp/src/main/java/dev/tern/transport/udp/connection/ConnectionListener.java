package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.StreamListener;

/** What the transport glue hears about a connection and its streams. */
public interface ConnectionListener extends StreamListener {
  /** The handshake completed: streams may be opened and written. */
  default void onHandshakeComplete(Connection connection) {}

  /**
   * The server issued a resumption ticket on this connection (a client's listener only; docs/
   * protocol.md §9.10). Keep it (e.g. in a session store, under the server and its key) to resume
   * a later connection with {@link ConnectionConfig#withResumption}; use it once. The ticket
   * holds secrets. Default: dropped.
   */
  default void onTicket(Connection connection, SessionTicket ticket) {}

  /**
   * The connection closed.
   *
   * @param error the transport error ({@link TransportError#APPLICATION_ERROR} for an application
   *     close, {@link TransportError#IDLE_TIMEOUT} for an idle timeout)
   * @param code the wire error code
   * @param reason the reason phrase, possibly empty
   * @param byPeer whether the peer closed it
   */
  default void onClosed(Connection connection, TransportError error, long code, String reason,
      boolean byPeer) {}

  /**
   * A client received an address-validation token from its server's NEW_TOKEN frame (RFC 9000
   * §8.1.3, §19.7): given to a later connection to the same server
   * ({@link ConnectionConfig.Builder#addressToken}), it lets the server answer that connection's
   * first flight in full, without the anti-amplification limit. Client only; the array is the
   * listener's to keep.
   */
  default void onNewToken(Connection connection, byte[] token) {}
}
