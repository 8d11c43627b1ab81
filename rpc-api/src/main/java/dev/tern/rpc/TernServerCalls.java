package dev.tern.rpc;

import io.grpc.Context;

/** What a Tern server call runs over, readable inside a service handler. */
public final class TernServerCalls {
  static final Context.Key<ConnectionInfo> CONNECTION_INFO = Context.key("tern.connectionInfo");
  static final Context.Key<Integer> PROTOCOL_VERSION = Context.key("tern.protocolVersion");

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
}
