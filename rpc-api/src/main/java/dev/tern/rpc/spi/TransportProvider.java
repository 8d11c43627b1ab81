package dev.tern.rpc.spi;

import java.net.SocketAddress;

/**
 * A transport, found with {@link java.util.ServiceLoader} (list the implementation in {@code
 * META-INF/services/dev.tern.rpc.spi.TransportProvider}) or bound with Guice.
 *
 * <p>Implementations must have a public no-argument constructor and must be cheap to construct:
 * Tern instantiates every provider on the class path to learn its {@link #name()} and {@link
 * #isAvailable()}. Heavy setup (event loops, native libraries) belongs in the transports it makes.
 */
public interface TransportProvider {

  /** How the Tern protocol version is agreed on a connection of this transport. */
  enum VersionHandshake {
    /**
     * The transport's own handshake carries both sides' versions (a UDP handshake parameter, QUIC's
     * ALPN); {@link ClientTransport} reports the outcome in its {@link
     * dev.tern.rpc.ConnectionInfo#protocolVersion()} or fails the connection with a {@link
     * io.grpc.Status#FAILED_PRECONDITION} naming both sides' versions.
     */
    IN_TRANSPORT,
    /**
     * The transport has no connection hook; the call layer sends the client's versions in a
     * request header of every call and the server answers with the chosen one.
     */
    PER_CALL_HEADER
  }

  /**
   * The transport's name, by which builders select it and {@link dev.tern.rpc.ConnectionInfo}
   * reports it.
   *
   * @return a short lower-case name, unique on the class path: {@code "tcp"}, {@code "quic"},
   *     {@code "udp"}
   */
  String name();

  /**
   * Whether this transport can run here. False when, for example, its native library cannot load on
   * this platform; {@link #unavailableReason()} then says why. The rest of Tern works without it.
   *
   * @return true if {@link #newClientTransport} and {@link #newServerTransport} may be called
   */
  boolean isAvailable();

  /**
   * Why {@link #isAvailable()} is false, for logs and errors.
   *
   * @return a sentence naming what is missing (a native library, a kernel feature), or null when
   *     the transport is available
   */
  String unavailableReason();

  /**
   * How this transport agrees the Tern protocol version; the call layer sends version headers
   * only for {@link VersionHandshake#PER_CALL_HEADER}.
   *
   * @return the handshake kind, never null
   */
  VersionHandshake versionHandshake();

  /**
   * Whether this transport always encrypts (QUIC: RFC 9001), so cannot serve a plaintext channel or
   * server. A channel built with {@code usePlaintext()} leaves such a transport out of its race,
   * and refuses one it names explicitly; a server refuses to listen with one without TLS.
   *
   * @return true if this transport cannot run without TLS; false by default
   */
  default boolean requiresTls() {
    return false;
  }

  /**
   * Whether this transport runs over datagrams (UDP), where a network may drop everything while
   * TCP still passes. A channel that names no transport races the first datagram transport it can
   * use against the first stream transport, so a black-holed datagram path falls back to TCP.
   *
   * @return true if this transport runs over datagrams; false (the default) for a transport over a
   *     stream such as TCP
   */
  default boolean isDatagram() {
    return false;
  }

  /**
   * Whether this transport's client can send calls in its first flight, before its handshake is
   * done (0-RTT early data, resuming a connection it had to the same server). When such a
   * transport is the first racer of a connect and is the one that worked for the server before,
   * the channel hands it calls allowed early data as soon as it starts; a transport that would only
   * queue them is not given them before the race has a winner.
   *
   * @return true if this transport can carry early data; false by default
   */
  default boolean supportsEarlyData() {
    return false;
  }

  /**
   * Why this transport cannot serve a channel given {@code options}, for instance a key it needs
   * and the channel does not set; null when it can. A channel that names no transport leaves such
   * a transport out of its race (instead of failing an attempt on every first connect); one that
   * names it gets the transport's own error when it connects.
   *
   * @param options the channel's transport options
   * @return a sentence naming what is missing, or null (the default)
   */
  default String unusableReason(TransportOptions options) {
    return null;
  }

  /**
   * The protocol id that names this transport in a server's {@code alt-svc} advertisement (RFC
   * 7838 §3: an ALPN protocol id), or null if servers never advertise it. A Tern server lists, in
   * the response headers of calls on each of its TLS connections, the transports it also listens
   * with that clients prefer to the one the call came on ({@code udp} over {@code quic} over
   * TCP), each with its port; a client that learns one from a server it authenticated may race
   * it on its next connect, on that port, even without the options it would otherwise need.
   *
   * @return the protocol id, or null (the default) for a transport that is not advertised
   */
  default String altSvcProtocolId() {
    return null;
  }

  /**
   * What a server listening with this transport adds to its advertisement besides the port and the
   * max-age: what a client needs to connect (a server key) and which versions it speaks. Names are
   * lower-case tokens; values are strings. Only called when {@link #altSvcProtocolId()} is not
   * null.
   *
   * @param serverOptions the server's transport options
   * @return the parameters, empty by default
   */
  default java.util.Map<String, String> altSvcParameters(TransportOptions serverOptions) {
    return java.util.Collections.emptyMap();
  }

  /**
   * The options of a client connection to a server that advertised this transport with {@code
   * parameters} (those of {@link #altSvcParameters} as the client received them), or null if this
   * client cannot use the advertisement (it shares no version with the server, a parameter it
   * needs is missing or malformed). What the channel set itself wins over what was advertised.
   *
   * @param channelOptions the channel's transport options
   * @param parameters the advertised parameters
   * @return the options to connect with, or null to leave the advertisement unused
   */
  default TransportOptions optionsForAlternative(TransportOptions channelOptions,
      java.util.Map<String, String> parameters) {
    return channelOptions;
  }

  /**
   * A new, unstarted client transport to one server.
   *
   * @param address the server's address
   * @param authority the {@code :authority} of calls (host and port; also the TLS server name)
   * @param options transport options; unknown ones are ignored
   * @return a transport that connects only when {@link ClientTransport#start} is called
   * @throws IllegalStateException if the transport is not {@linkplain #isAvailable() available}
   */
  ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options);

  /**
   * A new, unstarted server transport that will listen on {@code bindAddress} (port 0 picks a free
   * port; read the bound one from {@link ServerTransport#listenAddress()} after start).
   *
   * @param bindAddress the local address to listen on (port 0 for any free port)
   * @param options transport options; unknown ones are ignored
   * @return a transport that binds only when {@link ServerTransport#start} is called
   * @throws IllegalStateException if the transport is not {@linkplain #isAvailable() available}
   */
  ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options);
}
