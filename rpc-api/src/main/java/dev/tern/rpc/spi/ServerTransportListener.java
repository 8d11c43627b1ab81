package dev.tern.rpc.spi;

import io.grpc.Attributes;
import io.grpc.Status;

/**
 * Receives what a {@link ServerTransport} accepts: its connections' events and their streams.
 *
 * <p>A transport reports each connection it accepts, as grpc-java's transports do: {@link
 * #connectionCreated} once when the connection is accepted (before or at the end of its
 * handshake), then on the listener that returned {@link ConnectionListener#connectionReady} once
 * when the handshake is done, before the connection's first stream is handed over (0-RTT streams
 * aside, see {@link ServerStream#attributes()}), and {@link ConnectionListener#connectionTerminated}
 * once when it has ended, also when the server shuts down, and before {@link #serverTerminated()}.
 * The streams of a ready connection carry the attributes {@code connectionReady} returned ({@link
 * ServerStream#attributes()}).
 */
public interface ServerTransportListener {

  /**
   * A client opened a stream. Returns the listener for the stream's events; the transport delivers
   * nothing to it until this method returns. Must not block.
   *
   * @param stream the new stream, to answer on
   * @param headers the call's method, authority, deadline and metadata
   * @return the listener for the stream's events; never null
   */
  ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers);

  /**
   * The transport has shut down and released everything: no stream is open, no socket bound, and
   * every connection has been reported terminated.
   */
  void serverTerminated();

  /**
   * A client connected: called once per connection, when the transport accepts it, before any
   * other event of the connection. Must not block. The call layer closes, with {@code connection},
   * a connection whose handshake does not finish within the server's handshake timeout.
   *
   * @param connection the accepted connection, to close it early; not null
   * @return the listener for the connection's events; never null. The default ignores the events
   *     and leaves the attributes as the transport gave them.
   */
  default ConnectionListener connectionCreated(ConnectionHandle connection) {
    return ConnectionListener.PASS_THROUGH;
  }

  /** One accepted connection, as the call layer may act on it. */
  interface ConnectionHandle {
    /**
     * Closes the connection at once, cancelling its streams with {@code status}; the transport
     * then reports it terminated. Any thread; idempotent.
     *
     * @param status why, not OK; what open streams are cancelled with
     */
    void shutdownNow(Status status);
  }

  /** The events of one connection; the transport calls them serially, from any thread. */
  interface ConnectionListener {
    /** A listener that returns the attributes as given and ignores the end. */
    ConnectionListener PASS_THROUGH = new ConnectionListener() {
      @Override
      public Attributes connectionReady(Attributes attributes) {
        return attributes;
      }

      @Override
      public void connectionTerminated() {}
    };

    /**
     * The connection's handshake is done. Called once, before the transport hands over any stream
     * of the connection that did not arrive as 0-RTT early data. Must not block.
     *
     * @param attributes what the transport knows of the connection: {@code
     *     Grpc.TRANSPORT_ATTR_REMOTE_ADDR}, {@code Grpc.TRANSPORT_ATTR_LOCAL_ADDR}, {@code
     *     Grpc.TRANSPORT_ATTR_SSL_SESSION} (with TLS), {@link ConnectionAttributes#TRANSPORT} and
     *     {@link ConnectionAttributes#SECURITY_LEVEL}; see {@link ConnectionAttributes#of}
     * @return the attributes the connection's streams carry from now on; never null
     */
    Attributes connectionReady(Attributes attributes);

    /**
     * The connection has ended and its streams are closed. Called once per connection, whether it
     * became ready or not, also when the server shuts down. Must not block.
     */
    void connectionTerminated();
  }
}
