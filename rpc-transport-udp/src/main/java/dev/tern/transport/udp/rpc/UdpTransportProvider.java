package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import dev.tern.transport.udp.connection.ConnectionConfig;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code udp} transport: gRPC calls over Tern's own reliable UDP protocol (docs/protocol.md,
 * the RPC mapping in §10), always encrypted (the Noise handshake of docs/udp-crypto.md), with
 * the server authenticated by a pinned static key ({@link UdpTransportOptions}). The Tern
 * protocol version is agreed in the handshake (the {@code tern_rpc_versions} parameter). Pure
 * Java on NIO sockets: available wherever the JDK or Android's class library is.
 */
public final class UdpTransportProvider implements TransportProvider {
  /** The transport's name. */
  public static final String NAME = "udp";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public String unavailableReason() {
    return null;
  }

  /** True: Tern's UDP protocol runs over datagrams, so a channel races it against TCP. */
  @Override
  public boolean isDatagram() {
    return true;
  }

  /** True: a client that holds a resumption ticket sends idempotent calls in 0-RTT packets. */
  @Override
  public boolean supportsEarlyData() {
    return true;
  }

  /**
   * A client needs the server's pinned key ({@link UdpTransportOptions#PINNED_SERVER_KEY}); a
   * channel without one leaves {@code udp} out of its race.
   */
  @Override
  public String unusableReason(TransportOptions options) {
    return options.get(UdpTransportOptions.PINNED_SERVER_KEY) == null
        ? "no pinned server key (UdpTransportOptions.PINNED_SERVER_KEY) is set" : null;
  }

  /** The protocol id a server's {@code alt-svc} names this transport by. */
  public static final String ALT_SVC_PROTOCOL_ID = "tern-udp";

  /** {@value #ALT_SVC_PROTOCOL_ID}: servers advertise their {@code udp} listener to TCP and QUIC clients. */
  @Override
  public String altSvcProtocolId() {
    return ALT_SVC_PROTOCOL_ID;
  }

  /**
   * What a client needs to reach this server over {@code udp}: {@code key}, the public key of the
   * server's static key (base64url, RFC 4648 §5, no padding), {@code kid}, its key id, {@code v},
   * the wire versions it accepts (hexadecimal, comma-separated), and {@code rpc}, the Tern
   * protocol versions it serves (comma-separated).
   */
  @Override
  public Map<String, String> altSvcParameters(TransportOptions serverOptions) {
    byte[] key = serverOptions.get(UdpTransportOptions.SERVER_STATIC_KEY);
    if (key == null) {
      return Collections.emptyMap();
    }
    Map<String, String> out = new LinkedHashMap<>();
    out.put("key", Base64.getUrlEncoder().withoutPadding().encodeToString(UdpTransportOptions.publicKeyOf(key)));
    out.put("kid", Integer.toString(serverOptions.get(UdpTransportOptions.SERVER_KEY_ID)));
    StringBuilder v = new StringBuilder();
    for (int version : ConnectionConfig.defaults().versions()) {
      v.append(v.length() == 0 ? "" : ",").append(Integer.toHexString(version));
    }
    out.put("v", v.toString());
    StringBuilder rpc = new StringBuilder();
    for (int version : serverOptions.get(TransportOptions.PROTOCOL_VERSIONS)) {
      rpc.append(rpc.length() == 0 ? "" : ",").append(version);
    }
    out.put("rpc", rpc.toString());
    return out;
  }

  /**
   * Pins the advertised key (unless the channel pinned one itself: its own wins) if this client
   * shares a wire version and a Tern protocol version with the server; null otherwise, or if a
   * parameter is missing or malformed.
   */
  @Override
  public TransportOptions optionsForAlternative(TransportOptions channelOptions, Map<String, String> parameters) {
    try {
      if (!sharesOne(parameters.get("v"), 16, ConnectionConfig.defaults().versions())
          || !sharesOne(parameters.get("rpc"), 10, channelOptions.get(TransportOptions.PROTOCOL_VERSIONS))) {
        return null;
      }
      if (channelOptions.get(UdpTransportOptions.PINNED_SERVER_KEY) != null) {
        return channelOptions;
      }
      String key = parameters.get("key");
      String kid = parameters.get("kid");
      byte[] pin = key == null ? null : Base64.getUrlDecoder().decode(key);
      if (pin == null || pin.length != 32 || kid == null) {
        return null;
      }
      return channelOptions.with(UdpTransportOptions.PINNED_SERVER_KEY, pin)
          .with(UdpTransportOptions.SERVER_KEY_ID, Integer.parseInt(kid));
    } catch (IllegalArgumentException e) { // a bad base64 or number: NumberFormatException is one
      return null;
    }
  }

  /** Whether the comma-separated {@code list} (in {@code radix}) holds one of {@code ours}. */
  private static boolean sharesOne(String list, int radix, int[] ours) {
    if (list == null || list.length() > 256) {
      return false;
    }
    for (String item : list.split(",", 16)) {
      int theirs = Integer.parseUnsignedInt(item.trim(), radix);
      for (int v : ours) {
        if (v == theirs) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public VersionHandshake versionHandshake() {
    return VersionHandshake.IN_TRANSPORT;
  }

  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority,
      TransportOptions options) {
    return new UdpClientTransport(inet(address), authority, options);
  }

  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    UdpTransportOptions.server(options); // a missing key fails here, before any socket exists
    return new UdpServerTransport(inet(bindAddress), options);
  }

  private static InetSocketAddress inet(SocketAddress a) {
    if (!(a instanceof InetSocketAddress)) {
      throw new IllegalArgumentException("the udp transport needs an InetSocketAddress, got "
          + (a == null ? "null" : a.getClass().getName()));
    }
    return (InetSocketAddress) a;
  }
}
