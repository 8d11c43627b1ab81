package dev.tern.transport.quic;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.netty.handler.codec.quic.Quic;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;

/**
 * The {@code quic} transport: gRPC over HTTP/3 on Netty's QUIC codec (quiche through JNI). Each
 * call is one bidirectional QUIC stream; TLS 1.3 is mandatory; the Tern protocol version is agreed
 * in the HTTP/3 SETTINGS exchange ({@link VersionHandshake#IN_TRANSPORT}). Unavailable, with the
 * reason, where quiche's native library does not load.
 *
 * <p>Its transports report to the {@link dev.tern.rpc.spi.TransportEvents} in {@link
 * TransportOptions#EVENTS}: datagram payload bytes each way; packets quiche declared lost, as they
 * are counted at the end of a stream and at the latest when the connection closes; on a server,
 * Retries sent and refusals (connection limit, handshake caps, forged or expired tokens, malformed
 * datagrams, datagrams for no connection, rapid reset), and a connection's first stream read in
 * 0-RTT as early data accepted; on both, streams the peer reset. Whether a server took a client's
 * 0-RTT data is not reported on the client: neither quiche's binding nor Netty says.
 */
public final class QuicTransportProvider implements TransportProvider {
  /** The transport's name. */
  public static final String NAME = "quic";

  private final TransportOptions defaults;

  /** Creates the provider; cheap: the native library is probed lazily. */
  public QuicTransportProvider() {
    this(TransportOptions.defaults());
  }

  /**
   * A provider whose transports use the {@link QuicTransportOptions} keys set in {@code defaults}
   * unless the options they are created with set them: the way to choose QUIC settings (BBR, say)
   * for transports that {@code TernChannelBuilder} and {@code TernServerBuilder} create.
   *
   * @param defaults option values used where a transport's own options leave a key unset
   * @throws NullPointerException if {@code defaults} is null
   */
  public QuicTransportProvider(TransportOptions defaults) {
    this.defaults = java.util.Objects.requireNonNull(defaults, "defaults");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean isAvailable() {
    return Quic.isAvailable();
  }

  @Override
  public String unavailableReason() {
    if (Quic.isAvailable()) {
      return null;
    }
    Throwable cause = Quic.unavailabilityCause();
    return "QUIC native library (quiche) cannot load on " + System.getProperty("os.name") + "/"
        + System.getProperty("os.arch") + ": " + (cause == null ? "unknown cause" : cause);
  }

  /** True: QUIC always encrypts (RFC 9001). */
  @Override
  public boolean requiresTls() {
    return true;
  }

  /**
   * {@code h3}: a Tern server advertises its {@code quic} listener as HTTP/3 (RFC 9114 §3.1.1),
   * which it is, to its TCP clients.
   */
  @Override
  public String altSvcProtocolId() {
    return QuicTls.ALPN;
  }

  /** True: QUIC runs over UDP, so a channel races it against TCP. */
  @Override
  public boolean isDatagram() {
    return true;
  }

  /** True: a client resuming a TLS session sends calls allowed early data as 0-RTT. */
  @Override
  public boolean supportsEarlyData() {
    return true;
  }

  @Override
  public VersionHandshake versionHandshake() {
    return VersionHandshake.IN_TRANSPORT;
  }

  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
    ensureAvailable();
    return new QuicClientTransport(inet("address", address), authority, withDefaults(options));
  }

  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    ensureAvailable();
    return new QuicServerTransport(inet("bindAddress", bindAddress), withDefaults(options));
  }

  private TransportOptions withDefaults(TransportOptions options) {
    return QuicTransportOptions.withDefaults(options == null ? TransportOptions.defaults() : options, defaults);
  }

  private void ensureAvailable() {
    if (!isAvailable()) {
      throw new IllegalStateException(unavailableReason());
    }
  }

  private static InetSocketAddress inet(String name, SocketAddress a) {
    Objects.requireNonNull(a, name);
    if (!(a instanceof InetSocketAddress)) {
      throw new IllegalArgumentException(name + " must be an InetSocketAddress for QUIC, was " + a);
    }
    return (InetSocketAddress) a;
  }

  @Override
  public String toString() {
    return "QuicTransportProvider{available=" + isAvailable() + '}';
  }
}
