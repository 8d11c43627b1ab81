package dev.tern.rpc.spi;

import dev.tern.rpc.ConnectionInfo;
import io.grpc.Status;

/**
 * One connection (or the attempt at one) from a client to one server address.
 *
 * <p>Lifecycle: {@link #start} once; streams may be opened from then on, even before the connection
 * is ready (a transport queues them, bounded by flow control, and may send those that allow it as
 * 0-RTT early data); {@link #shutdown} stops new streams and lets open ones finish; {@link
 * #shutdownNow} cancels the open ones too. The listener then hears {@link
 * Listener#transportShutdown} once and, when every stream is closed and every resource released,
 * {@link Listener#transportTerminated} once.
 */
public interface ClientTransport {

  /** Events of a client transport; called serially. */
  interface Listener {
    /**
     * The connection is up and its handshake done; {@code info} has the agreed protocol version.
     *
     * @param info a snapshot of the connection as it stands now
     */
    void transportReady(ConnectionInfo info);

    /**
     * The transport accepts no new streams: after {@link #shutdown}, or because the connection
     * failed or was closed by the peer ({@code status} says why, with a description).
     *
     * @param status why, never OK: UNAVAILABLE after {@link #shutdown} or for a lost connection,
     *     the status given to {@link #shutdownNow}, FAILED_PRECONDITION for no common protocol
     *     version
     */
    void transportShutdown(io.grpc.Status status);

    /** Every stream has closed and every resource (sockets, threads, buffers) is released. */
    void transportTerminated();
  }

  /**
   * Starts connecting. Events go to {@code listener}.
   *
   * @param listener receives this transport's events; not null
   * @throws IllegalStateException if already started
   */
  void start(Listener listener);

  /**
   * Opens a stream for one call. Never throws for a transport problem: a stream that cannot be
   * opened (the transport is shut down, a stream limit is hit, the handshake failed) is returned
   * already closed, its listener told with a {@link Status} that says why ({@code UNAVAILABLE} when
   * a retry elsewhere may work).
   *
   * @param headers the call's method, authority, deadline, metadata and options
   * @param listener receives the stream's events
   * @return the stream, open or already closed; never null
   */
  ClientStream newStream(RequestHeaders headers, ClientStreamListener listener);

  /**
   * False when the server refused this connection after the transport had already called {@link
   * Listener#transportReady}. A transport may be ready before the server has spoken: from what an
   * earlier connection to the same server taught it (its protocol versions), once its handshake is
   * done, so that calls need not wait the round trip to the server's first frames. A server that
   * then closes the connection before speaking (over its connection limit, say) refused it; to the
   * channel that is a failed connection attempt, and it backs off before the next, where a
   * connection lost after it worked lets it reconnect at once (grpc-go counts a connection closed
   * before the server's HTTP/2 preface the same way). Read on any thread, at the latest when the
   * transport reports its shutdown.
   *
   * @return false if the server closed the connection before speaking on it, else true (the
   *     default, for transports that are never ready before the server has spoken)
   */
  default boolean confirmed() {
    return true;
  }

  /**
   * The device's network changed (an interface came or went: Wi-Fi to cellular, say), as the
   * application heard from the platform ({@code TernChannels.networkChanged}). A transport that
   * can carry its connection over to the new network does so at once, without waiting for a send
   * to fail, and returns true: Tern's {@code udp} moves its connection to a socket sending from
   * the address the system now chooses (RFC 9000 §9.2), and its calls carry on. One that cannot
   * returns false (the default), and the channel leaves it: its calls finish on it if they still
   * can, and the next call connects anew, over the new network. Called on any thread.
   *
   * @return true if the transport moves its connection itself, false if the channel should leave it
   */
  default boolean networkChanged() {
    return false;
  }

  /**
   * A snapshot of what this transport is connected over.
   *
   * @return the transport's name, addresses and counters now; counters it lacks are -1
   */
  ConnectionInfo connectionInfo();

  /** Accepts no new streams; open streams run to completion, then the connection closes. */
  void shutdown();

  /**
   * Cancels every open stream with {@code status} and closes the connection at once.
   *
   * @param status what the open streams' listeners are closed with; not OK
   */
  void shutdownNow(Status status);
}
