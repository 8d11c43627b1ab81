package dev.tern.transport.okhttp;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import java.net.SocketAddress;

/**
 * gRPC over HTTP/2 on TCP, on grpc-java's OkHttp transport (the one grpc-java itself uses on
 * Android): wire-compatible with every gRPC peer, in plaintext or TLS with ALPN {@code h2}
 * (RFC 7540 §3.3, §3.4), with no Netty class and no native library. Its name is {@value #NAME}.
 *
 * <p>With the default preference a channel races it as its TCP transport when {@code tcp}
 * (grpc-netty) is not on the class path; with both present, {@code tcp} is chosen, and a channel
 * names {@code transports("okhttp")} to use this one.
 *
 * <p>As on {@code tcp}, the Tern protocol version travels in a header of every call ({@link
 * VersionHandshake#PER_CALL_HEADER}), and kernel TCP's counters (RTT, congestion window, bytes)
 * read as {@code -1}. The server side is grpc-okhttp's server, for tests and trusted peers: it sets
 * no limit on a client's stream resets ({@link TransportOptions#MAX_RST_FRAMES_PER_WINDOW} is not
 * carried out).
 */
public final class OkHttpTransportProvider implements TransportProvider {
  /** This transport's name. */
  public static final String NAME = "okhttp";

  /** Creates the provider; cheap, as {@link TransportProvider} requires. */
  public OkHttpTransportProvider() {}

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
   * @throws IllegalArgumentException if the {@link TransportOptions#TLS} settings cannot be used, or
   *     {@code address} is neither an {@link java.net.InetSocketAddress} nor an HTTP CONNECT proxied
   *     address
   */
  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
    if (address == null) {
      throw new NullPointerException("address");
    }
    return new OkHttpClientTransport(address, authority, options == null ? TransportOptions.defaults() : options);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the {@link TransportOptions#TLS} settings cannot be used
   */
  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    if (bindAddress == null) {
      throw new NullPointerException("bindAddress");
    }
    return new OkHttpServerTransport(bindAddress, options == null ? TransportOptions.defaults() : options);
  }
}
