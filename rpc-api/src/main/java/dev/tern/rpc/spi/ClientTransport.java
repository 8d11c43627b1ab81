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
    /** The connection is up and its handshake done; {@code info} has the agreed protocol version. */
    void transportReady(ConnectionInfo info);

    /**
     * The transport accepts no new streams: after {@link #shutdown}, or because the connection
     * failed or was closed by the peer ({@code status} says why, with a description).
     */
    void transportShutdown(io.grpc.Status status);

    /** Every stream has closed and every resource (sockets, threads, buffers) is released. */
    void transportTerminated();
  }

  /**
   * Starts connecting. Events go to {@code listener}.
   *
   * @throws IllegalStateException if already started
   */
  void start(Listener listener);

  /**
   * Opens a stream for one call. Never throws for a transport problem: a stream that cannot be
   * opened (the transport is shut down, a stream limit is hit, the handshake failed) is returned
   * already closed, its listener told with a {@link Status} that says why ({@code UNAVAILABLE} when
   * a retry elsewhere may work).
   */
  ClientStream newStream(RequestHeaders headers, ClientStreamListener listener);

  /** A snapshot of what this transport is connected over. */
  ConnectionInfo connectionInfo();

  /** Accepts no new streams; open streams run to completion, then the connection closes. */
  void shutdown();

  /** Cancels every open stream with {@code status} and closes the connection at once. */
  void shutdownNow(Status status);
}
