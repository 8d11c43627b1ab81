package dev.tern.rpc.spi;

import dev.tern.rpc.ConnectionInfo;
import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.SecurityLevel;
import java.util.Objects;

/**
 * The attributes a server transport reports with a ready connection ({@link
 * ServerTransportListener.ConnectionListener#connectionReady}), and that a client channel gives
 * its transport filters: grpc-java's keys from {@link Grpc} plus the transport's name and the
 * connection's security level.
 */
public final class ConnectionAttributes {
  /** The name of the transport that carries the connection ({@code "tcp"}, {@code "quic"}, ...). */
  public static final Attributes.Key<String> TRANSPORT = Attributes.Key.create("tern.transport");
  /** The security the connection has: {@code PRIVACY_AND_INTEGRITY} with TLS, {@code NONE} without. */
  public static final Attributes.Key<SecurityLevel> SECURITY_LEVEL = Attributes.Key.create("tern.securityLevel");

  private ConnectionAttributes() {}

  /**
   * The attributes of a connection as {@code info} describes it: remote and local address and TLS
   * session where known, the transport's name and {@code level}.
   *
   * @param info the connection's snapshot; not null
   * @param level the connection's security level; not null
   * @return the attributes, with no entry for what {@code info} does not know
   * @throws NullPointerException if {@code info} or {@code level} is null
   */
  public static Attributes of(ConnectionInfo info, SecurityLevel level) {
    Objects.requireNonNull(info, "info");
    Objects.requireNonNull(level, "level");
    Attributes.Builder b = Attributes.newBuilder()
        .set(TRANSPORT, info.transport())
        .set(SECURITY_LEVEL, level);
    if (info.remoteAddress() != null) {
      b.set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, info.remoteAddress());
    }
    if (info.localAddress() != null) {
      b.set(Grpc.TRANSPORT_ATTR_LOCAL_ADDR, info.localAddress());
    }
    if (info.sslSession() != null) {
      b.set(Grpc.TRANSPORT_ATTR_SSL_SESSION, info.sslSession());
    }
    return b.build();
  }
}
