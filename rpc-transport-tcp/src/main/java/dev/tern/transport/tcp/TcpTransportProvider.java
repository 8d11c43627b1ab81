package dev.tern.transport.tcp;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import java.net.SocketAddress;
import java.util.Objects;

/**
 * gRPC over HTTP/2 on TCP, on grpc-java's Netty transport: wire-compatible with every gRPC peer
 * (grpc-java, grpc-go, grpcurl, ...), in plaintext or TLS with ALPN {@code h2}.
 *
 * <p>HTTP/2 gives no connection-level hook grpc-java would expose, so the Tern protocol version
 * travels in a header of every call ({@link VersionHandshake#PER_CALL_HEADER}). Connection counters
 * of kernel TCP (RTT, congestion window, bytes) are not reachable through grpc-java's public API and
 * read as {@code -1}.
 *
 * <p>Its transports report to the {@link dev.tern.rpc.spi.TransportEvents} in {@link
 * TransportOptions#EVENTS}, from a handler first in each connection's pipeline: TCP payload bytes
 * each way; retransmitted segments from the kernel's TCP_INFO where epoll is used (as the
 * connection reads, and at the latest when it closes; nothing on NIO); streams the peer reset
 * (RST_STREAM with an error); on a server, connections refused for {@code maxConnections} and
 * connections grpc-netty closed for rapid reset.
 */
public final class TcpTransportProvider implements TransportProvider {
  /** This transport's name. */
  public static final String NAME = "tcp";

  /** Creates the provider; cheap, as {@link TransportProvider} requires. */
  public TcpTransportProvider() {}

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

  @Override
  public VersionHandshake versionHandshake() {
    return VersionHandshake.PER_CALL_HEADER;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the {@link TransportOptions#TLS} settings cannot be used
   */
  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
    Objects.requireNonNull(address, "address");
    return new TcpClientTransport(address, authority, options == null ? TransportOptions.defaults() : options);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the {@link TransportOptions#TLS} settings cannot be used
   */
  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    Objects.requireNonNull(bindAddress, "bindAddress");
    return new TcpServerTransport(bindAddress, options == null ? TransportOptions.defaults() : options);
  }
}
