package dev.tern.rpc;

import io.grpc.Context;

/** What a Tern server call runs over, readable inside a service handler. */
public final class TernServerCalls {
  static final Context.Key<ConnectionInfo> CONNECTION_INFO = Context.key("tern.connectionInfo");
  static final Context.Key<Integer> PROTOCOL_VERSION = Context.key("tern.protocolVersion");
  static final Context.Key<Boolean> EARLY_DATA = Context.key("tern.earlyData");

  private TernServerCalls() {}

  /**
   * The current call's connection (transport, protocol version, counters).
   *
   * @return the snapshot taken when the call started, never null
   * @throws IllegalStateException if not called within a call served by a Tern server
   */
  public static ConnectionInfo connectionInfo() {
    ConnectionInfo info = CONNECTION_INFO.get();
    if (info == null) {
      throw new IllegalStateException("not inside a call served by a Tern server");
    }
    return info;
  }

  /**
   * The Tern protocol version agreed for the current call.
   *
   * @return the version both sides speak, as {@link ProtocolVersions} agreed it
   * @throws IllegalStateException if not called within a call served by a Tern server
   */
  public static int protocolVersion() {
    Integer v = PROTOCOL_VERSION.get();
    if (v == null) {
      throw new IllegalStateException("not inside a call served by a Tern server");
    }
    return v;
  }

  /**
   * Whether the current call's request arrived as 0-RTT early data, which an attacker may have
   * replayed. The server already refuses early calls to methods that are neither idempotent nor
   * safe (UNAVAILABLE, so the client can send them again after the handshake); a handler of an
   * idempotent method can use this to be stricter still. The call's {@code ServerCall} carries
   * the same fact as the attribute {@link #EARLY_DATA_ATTR}.
   *
   * @return true if the request came before the handshake completed
   * @throws IllegalStateException if not called within a call served by a Tern server
   */
  public static boolean receivedAsEarlyData() {
    Boolean early = EARLY_DATA.get();
    if (early == null) {
      throw new IllegalStateException("not inside a call served by a Tern server");
    }
    return early;
  }

  /**
   * The {@code ServerCall.getAttributes()} key saying whether the call arrived as 0-RTT early data
   * (see {@link #receivedAsEarlyData()}); readable in a {@code ServerInterceptor}. Always set on
   * calls served by a Tern server.
   */
  public static final io.grpc.Attributes.Key<Boolean> EARLY_DATA_ATTR = io.grpc.Attributes.Key.create("tern.earlyData");
}
