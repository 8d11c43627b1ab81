package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

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
