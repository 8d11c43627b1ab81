package dev.tern.rpc.spi;

/**
 * What a transport reports of its own work, for the metrics an operator graphs: bytes on the wire,
 * retransmissions, work it refused and why, streams its peer reset, Retry packets and 0-RTT
 * outcomes. The call layer passes one to each transport it creates in {@link
 * TransportOptions#EVENTS} and keeps the counts ({@link dev.tern.rpc.metrics.TransportMetrics});
 * connections, handshakes and calls it counts itself from the SPI's other events.
 *
 * <p>Every method is cheap (an add to a striped counter), allocation-free and safe from any thread,
 * so a transport may call them per datagram on its event loop. Every method has a default that
 * does nothing: a transport reports what it can see.
 */
public interface TransportEvents {
  /** Reports nothing: what {@link TransportOptions#EVENTS} reads as when not set. */
  TransportEvents NONE = new TransportEvents() {
    @Override
    public String toString() {
      return "TransportEvents.NONE";
    }
  };

  /** A connection refused because the server holds its most connections ({@code maxConnections}). */
  String CONNECTION_LIMIT = "connection-limit";
  /** A handshake refused because too many are in progress, in total or from one address. */
  String HANDSHAKE_LIMIT = "handshake-limit";
  /** A connection closed for resetting streams faster than its limit (CVE-2023-44487). */
  String RAPID_RESET = "rapid-reset";
  /** A datagram that could not be parsed, or failed its authentication, dropped. */
  String MALFORMED = "malformed";
  /** A datagram for no known connection, dropped (and answered by a stateless reset if allowed). */
  String UNKNOWN_CONNECTION = "unknown-connection";
  /** An address-validation token that was forged, expired or reused, dropped. */
  String INVALID_TOKEN = "invalid-token";
  /** A stream or connection refused because the server is draining or shutting down. */
  String SHUTTING_DOWN = "shutting-down";
  /** A call that arrived as 0-RTT early data for a method that is not replay-safe. */
  String EARLY_DATA_NOT_REPLAY_SAFE = "early-data-not-replay-safe";
  /** A stream beyond the connection's concurrent-stream limit, refused. */
  String STREAM_LIMIT = "stream-limit";

  /**
   * Bytes written to the network, as the transport counts them (datagrams' payloads for UDP and
   * QUIC, TCP payload bytes for TCP).
   *
   * @param bytes how many; not negative
   */
  default void bytesSent(long bytes) {}

  /**
   * Bytes read from the network, counted as {@link #bytesSent}.
   *
   * @param bytes how many; not negative
   */
  default void bytesReceived(long bytes) {}

  /**
   * Packets (or TCP segments) the transport declared lost and sent again.
   *
   * @param packets how many; not negative
   */
  default void retransmitted(long packets) {}

  /**
   * New work (a connection, a handshake, a stream, a datagram) refused or dropped, with why: one of
   * this interface's reason constants or another short lower-case word of the transport's own.
   * Existing work is not affected by a refusal.
   *
   * @param reason why; not null
   */
  default void refused(String reason) {}

  /** A stream reset by the peer (RST_STREAM, RESET_STREAM or STOP_SENDING) before it ended. */
  default void streamReset() {}

  /** A Retry packet sent to validate a client's address before any state was kept (RFC 9000 §8.1.2). */
  default void retrySent() {}

  /**
   * The outcome of a resumed connection's 0-RTT attempt: on a server, whether it took the early
   * data; on a client, whether the server did.
   *
   * @param accepted true if the early data was accepted
   */
  default void earlyData(boolean accepted) {}
}
