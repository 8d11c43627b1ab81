package dev.tern.transport.bridge;

import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.ServerTransportListener;
import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.SecurityLevel;
import io.grpc.ServerTransportFilter;
import java.util.function.Supplier;

/**
 * Reports each connection of the inner grpc-okhttp server to Tern's listener. grpc-java tells a
 * transport filter of a connection when its HTTP/2 handshake is done (the client's first
 * SETTINGS) and when it has terminated, also when the server shuts down; the connection's
 * listener travels in the connection's attributes from the one event to the other, and the
 * attributes Tern's listener returns become every call's (grpc-java gives calls what the filters
 * returned).
 *
 * <p>grpc-java's server closes connections whose handshake outlasts the server's handshake timeout
 * itself, before this filter ever hears of them, so a connection is reported created and ready at
 * once and the handle given with it never needs to close anything.
 */
public final class ConnectionEvents extends ServerTransportFilter {
  /** The connection's Tern listener, in the connection's attributes; stripped from what calls see. */
  static final Attributes.Key<ServerTransportListener.ConnectionListener> LISTENER =
      Attributes.Key.create("tern.okhttp.connectionListener");

  private static final ServerTransportListener.ConnectionHandle CLOSED_BY_GRPC = status -> {};

  private final Supplier<ServerTransportListener> listener;

  private final String transport;

  /**
   * Events for the server whose listener {@code listener} gives.
   *
   * @param listener the server transport's listener, once it has one
   * @param transport the transport's name, for {@link ConnectionAttributes#TRANSPORT}
   */
  public ConnectionEvents(Supplier<ServerTransportListener> listener, String transport) {
    this.transport = transport;
    this.listener = listener;
  }

  @Override
  public Attributes transportReady(Attributes transportAttrs) {
    ServerTransportListener.ConnectionListener l = listener.get().connectionCreated(CLOSED_BY_GRPC);
    SecurityLevel level = transportAttrs.get(Grpc.TRANSPORT_ATTR_SSL_SESSION) != null
        ? SecurityLevel.PRIVACY_AND_INTEGRITY : SecurityLevel.NONE;
    Attributes ready = l.connectionReady(transportAttrs.toBuilder()
        .set(ConnectionAttributes.TRANSPORT, transport)
        .set(ConnectionAttributes.SECURITY_LEVEL, level)
        .build());
    return ready.toBuilder().set(LISTENER, l).build();
  }

  @Override
  public void transportTerminated(Attributes transportAttrs) {
    // Null for a connection that ended before its handshake: it was never reported.
    ServerTransportListener.ConnectionListener l = transportAttrs == null ? null : transportAttrs.get(LISTENER);
    if (l != null) {
      l.connectionTerminated();
    }
  }

  /** What a call's stream reports as its connection's attributes: the filtered ones, without ours. */
  public static Attributes forCalls(Attributes callAttributes) {
    return callAttributes.get(LISTENER) == null ? callAttributes
        : callAttributes.toBuilder().discard(LISTENER).build();
  }
}
