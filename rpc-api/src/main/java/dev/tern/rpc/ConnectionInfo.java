package dev.tern.rpc;

import java.net.SocketAddress;
import java.util.Objects;

/**
 * What a channel or a server call is connected over: a snapshot taken when it was asked for.
 *
 * <p>Counters a transport does not have are {@code -1}: gRPC over kernel TCP, for example, knows no
 * congestion window of its own. Read it from a client with
 * {@link TernChannels#connectionInfo(io.grpc.Channel)} and on the server from
 * {@link TernServerCalls#connectionInfo()}.
 */
public final class ConnectionInfo {
  private final String transport;
  private final int protocolVersion;
  private final SocketAddress localAddress;
  private final SocketAddress remoteAddress;
  private final long smoothedRttNanos;
  private final long minRttNanos;
  private final long congestionWindowBytes;
  private final long bytesSent;
  private final long bytesReceived;
  private final long packetsSent;
  private final long packetsLost;
  private final long packetsRetransmitted;
  private final long bytesInFlight;
  private final long pathChanges;
  private final boolean earlyDataAccepted;
  private final javax.net.ssl.SSLSession sslSession;

  private ConnectionInfo(Builder b) {
    this.transport = Objects.requireNonNull(b.transport, "transport");
    this.protocolVersion = b.protocolVersion;
    this.localAddress = b.localAddress;
    this.remoteAddress = b.remoteAddress;
    this.smoothedRttNanos = b.smoothedRttNanos;
    this.minRttNanos = b.minRttNanos;
    this.congestionWindowBytes = b.congestionWindowBytes;
    this.bytesSent = b.bytesSent;
    this.bytesReceived = b.bytesReceived;
    this.packetsSent = b.packetsSent;
    this.packetsLost = b.packetsLost;
    this.packetsRetransmitted = b.packetsRetransmitted;
    this.bytesInFlight = b.bytesInFlight;
    this.pathChanges = b.pathChanges;
    this.earlyDataAccepted = b.earlyDataAccepted;
    this.sslSession = b.sslSession;
  }

  /**
   * A builder for transports; every counter starts at {@code -1} (unknown), the protocol version
   * at 0 and both addresses at null.
   *
   * @param transport the transport's name, as its {@link dev.tern.rpc.spi.TransportProvider#name()}
   *     gives it; not null
   * @return a new builder
   * @throws NullPointerException if {@code transport} is null
   */
  public static Builder builder(String transport) {
    return new Builder(transport);
  }

  /**
   * A builder holding this snapshot's values (to amend one, say, with a version learned later).
   *
   * @return a new builder; changing it leaves this snapshot as it is
   */
  public Builder toBuilder() {
    return new Builder(transport).protocolVersion(protocolVersion).localAddress(localAddress)
        .remoteAddress(remoteAddress).smoothedRttNanos(smoothedRttNanos).minRttNanos(minRttNanos)
        .congestionWindowBytes(congestionWindowBytes).bytesSent(bytesSent).bytesReceived(bytesReceived)
        .packetsSent(packetsSent).packetsLost(packetsLost).packetsRetransmitted(packetsRetransmitted)
        .bytesInFlight(bytesInFlight).pathChanges(pathChanges).earlyDataAccepted(earlyDataAccepted).sslSession(sslSession);
  }

  /**
   * The transport's name, as {@link dev.tern.rpc.spi.TransportProvider#name()} gives it.
   *
   * @return the transport's name, never null
   */
  public String transport() {
    return transport;
  }

  /**
   * The Tern protocol version in use on this connection.
   *
   * @return the agreed version (see {@link ProtocolVersions}), or 0 before it is known
   */
  public int protocolVersion() {
    return protocolVersion;
  }

  /**
   * This side's address.
   *
   * @return the local address, or null if the transport does not know it
   */
  public SocketAddress localAddress() {
    return localAddress;
  }

  /**
   * The peer's address.
   *
   * @return the remote address, or null if the transport does not know it
   */
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  /**
   * Smoothed round-trip time (RFC 9002 §5.3).
   *
   * @return the smoothed RTT in nanoseconds, or -1 if the transport does not measure it
   */
  public long smoothedRttNanos() {
    return smoothedRttNanos;
  }

  /**
   * The smallest round-trip time seen on this connection (RFC 9002 §5.2).
   *
   * @return the minimum RTT in nanoseconds, or -1 if the transport does not measure it
   */
  public long minRttNanos() {
    return minRttNanos;
  }

  /**
   * The sender's congestion window at the time of the snapshot.
   *
   * @return the congestion window in bytes, or -1 if the transport has none of its own (kernel
   *     TCP, say)
   */
  public long congestionWindowBytes() {
    return congestionWindowBytes;
  }

  /**
   * Bytes sent on the wire since the connection opened, headers included where known.
   *
   * @return the bytes sent, or -1 if the transport does not count them
   */
  public long bytesSent() {
    return bytesSent;
  }

  /**
   * Bytes received on the wire since the connection opened.
   *
   * @return the bytes received, or -1 if the transport does not count them
   */
  public long bytesReceived() {
    return bytesReceived;
  }

  /**
   * Packets sent since the connection opened.
   *
   * @return the packet count, or -1 if the transport does not count packets
   */
  public long packetsSent() {
    return packetsSent;
  }

  /**
   * Packets that loss detection declared lost (RFC 9002 §6).
   *
   * @return the packet count, or -1 if the transport does not count packets
   */
  public long packetsLost() {
    return packetsLost;
  }

  /**
   * Packets that carried retransmitted data.
   *
   * @return the packet count, or -1 if the transport does not count packets
   */
  public long packetsRetransmitted() {
    return packetsRetransmitted;
  }

  /**
   * The bytes sent and neither acknowledged nor declared lost, as the congestion controller
   * counts them (RFC 9002 §2, "bytes in flight").
   *
   * @return the byte count, or -1 if the transport does not know it
   */
  public long bytesInFlight() {
    return bytesInFlight;
  }

  /**
   * How many times the connection's path changed while it lived: the peer was heard from a new
   * address (a NAT rebinding or a move, RFC 9000 §9.3), or this end moved to a new local address
   * (RFC 9000 §9.2). The connection and its calls carry on across each.
   *
   * @return the count, or -1 if the transport cannot change paths or does not count them
   */
  public long pathChanges() {
    return pathChanges;
  }

  /**
   * Whether the server accepted this connection's 0-RTT early data.
   *
   * @return true if early data was sent and accepted; false if none was sent, it was rejected, or
   *     the transport has no early data
   */
  public boolean earlyDataAccepted() {
    return earlyDataAccepted;
  }

  /**
   * The connection's TLS session (the peer's certificates, the cipher suite), which the call layer
   * also gives calls as {@code Grpc.TRANSPORT_ATTR_SSL_SESSION}, as grpc-java does.
   *
   * @return the session, or null on a connection without TLS or when the transport does not know it
   */
  public javax.net.ssl.SSLSession sslSession() {
    return sslSession;
  }

  @Override
  public String toString() {
    return "ConnectionInfo{transport=" + transport + ", protocolVersion=" + protocolVersion
        + ", remote=" + remoteAddress + ", srttNs=" + smoothedRttNanos + ", cwnd=" + congestionWindowBytes
        + ", sent=" + bytesSent + ", received=" + bytesReceived + ", lost=" + packetsLost
        + ", retransmitted=" + packetsRetransmitted + ", inFlight=" + bytesInFlight
        + ", pathChanges=" + pathChanges + ", earlyData=" + earlyDataAccepted + '}';
  }

  /** Builds a {@link ConnectionInfo}; counters left unset stay {@code -1}. */
  public static final class Builder {
    private final String transport;
    private int protocolVersion;
    private SocketAddress localAddress;
    private SocketAddress remoteAddress;
    private long smoothedRttNanos = -1;
    private long minRttNanos = -1;
    private long congestionWindowBytes = -1;
    private long bytesSent = -1;
    private long bytesReceived = -1;
    private long packetsSent = -1;
    private long packetsLost = -1;
    private long packetsRetransmitted = -1;
    private long bytesInFlight = -1;
    private long pathChanges = -1;
    private boolean earlyDataAccepted;
    private javax.net.ssl.SSLSession sslSession;

    private Builder(String transport) {
      this.transport = Objects.requireNonNull(transport, "transport");
    }

    /**
     * Sets the agreed Tern protocol version.
     *
     * @param v the version, or 0 if not yet known
     * @return this builder
     */
    public Builder protocolVersion(int v) { this.protocolVersion = v; return this; }
    /**
     * Sets this side's address.
     *
     * @param a the local address, or null if unknown
     * @return this builder
     */
    public Builder localAddress(SocketAddress a) { this.localAddress = a; return this; }
    /**
     * Sets the peer's address.
     *
     * @param a the remote address, or null if unknown
     * @return this builder
     */
    public Builder remoteAddress(SocketAddress a) { this.remoteAddress = a; return this; }
    /**
     * Sets the smoothed RTT.
     *
     * @param v the smoothed RTT in nanoseconds, or -1 if unknown
     * @return this builder
     */
    public Builder smoothedRttNanos(long v) { this.smoothedRttNanos = v; return this; }
    /**
     * Sets the minimum RTT.
     *
     * @param v the minimum RTT in nanoseconds, or -1 if unknown
     * @return this builder
     */
    public Builder minRttNanos(long v) { this.minRttNanos = v; return this; }
    /**
     * Sets the congestion window.
     *
     * @param v the congestion window in bytes, or -1 if the transport has none
     * @return this builder
     */
    public Builder congestionWindowBytes(long v) { this.congestionWindowBytes = v; return this; }
    /**
     * Sets the bytes sent on the wire.
     *
     * @param v the byte count, or -1 if unknown
     * @return this builder
     */
    public Builder bytesSent(long v) { this.bytesSent = v; return this; }
    /**
     * Sets the bytes received on the wire.
     *
     * @param v the byte count, or -1 if unknown
     * @return this builder
     */
    public Builder bytesReceived(long v) { this.bytesReceived = v; return this; }
    /**
     * Sets the packets sent.
     *
     * @param v the packet count, or -1 if unknown
     * @return this builder
     */
    public Builder packetsSent(long v) { this.packetsSent = v; return this; }
    /**
     * Sets the packets declared lost.
     *
     * @param v the packet count, or -1 if unknown
     * @return this builder
     */
    public Builder packetsLost(long v) { this.packetsLost = v; return this; }
    /**
     * Sets the packets that carried retransmitted data.
     *
     * @param v the packet count, or -1 if unknown
     * @return this builder
     */
    public Builder packetsRetransmitted(long v) { this.packetsRetransmitted = v; return this; }
    /**
     * Sets the bytes in flight.
     *
     * @param v the byte count, or -1 if unknown
     * @return this builder
     */
    public Builder bytesInFlight(long v) { this.bytesInFlight = v; return this; }
    /**
     * Sets the count of path changes.
     *
     * @param v the count, or -1 if unknown
     * @return this builder
     */
    public Builder pathChanges(long v) { this.pathChanges = v; return this; }
    /**
     * Sets whether the server accepted this connection's 0-RTT data.
     *
     * @param v true if early data was accepted
     * @return this builder
     */
    public Builder earlyDataAccepted(boolean v) { this.earlyDataAccepted = v; return this; }

    /**
     * Sets the connection's TLS session.
     *
     * @param session the session; null when the connection has no TLS
     * @return this builder
     */
    public Builder sslSession(javax.net.ssl.SSLSession session) { this.sslSession = session; return this; }

    /**
     * Builds the snapshot; the builder may be used again afterwards.
     *
     * @return a new, immutable snapshot of the values set so far
     */
    public ConnectionInfo build() {
      return new ConnectionInfo(this);
    }
  }
}
