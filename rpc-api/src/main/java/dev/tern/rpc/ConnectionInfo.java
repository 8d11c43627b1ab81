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
  private final boolean earlyDataAccepted;

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
    this.earlyDataAccepted = b.earlyDataAccepted;
  }

  /** A builder for transports; every counter starts at {@code -1} (unknown). */
  public static Builder builder(String transport) {
    return new Builder(transport);
  }

  /** A builder holding this snapshot's values (to amend one, say, with a version learned later). */
  public Builder toBuilder() {
    return new Builder(transport).protocolVersion(protocolVersion).localAddress(localAddress)
        .remoteAddress(remoteAddress).smoothedRttNanos(smoothedRttNanos).minRttNanos(minRttNanos)
        .congestionWindowBytes(congestionWindowBytes).bytesSent(bytesSent).bytesReceived(bytesReceived)
        .packetsSent(packetsSent).packetsLost(packetsLost).packetsRetransmitted(packetsRetransmitted)
        .earlyDataAccepted(earlyDataAccepted);
  }

  /** The transport's name, as {@link dev.tern.rpc.spi.TransportProvider#name()} gives it. */
  public String transport() {
    return transport;
  }

  /** The Tern protocol version in use on this connection, or 0 before it is known. */
  public int protocolVersion() {
    return protocolVersion;
  }

  /** This side's address, or null if unknown. */
  public SocketAddress localAddress() {
    return localAddress;
  }

  /** The peer's address, or null if unknown. */
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  /** Smoothed RTT (RFC 9002 §5.3) in nanoseconds, or -1. */
  public long smoothedRttNanos() {
    return smoothedRttNanos;
  }

  /** Minimum RTT seen, in nanoseconds, or -1. */
  public long minRttNanos() {
    return minRttNanos;
  }

  /** Congestion window in bytes, or -1. */
  public long congestionWindowBytes() {
    return congestionWindowBytes;
  }

  /** Bytes sent on the wire (headers included where known), or -1. */
  public long bytesSent() {
    return bytesSent;
  }

  /** Bytes received on the wire, or -1. */
  public long bytesReceived() {
    return bytesReceived;
  }

  /** Packets sent, or -1. */
  public long packetsSent() {
    return packetsSent;
  }

  /** Packets declared lost, or -1. */
  public long packetsLost() {
    return packetsLost;
  }

  /** Packets that carried retransmitted data, or -1. */
  public long packetsRetransmitted() {
    return packetsRetransmitted;
  }

  /** Whether this connection's 0-RTT early data was accepted by the server. */
  public boolean earlyDataAccepted() {
    return earlyDataAccepted;
  }

  @Override
  public String toString() {
    return "ConnectionInfo{transport=" + transport + ", protocolVersion=" + protocolVersion
        + ", remote=" + remoteAddress + ", srttNs=" + smoothedRttNanos + ", cwnd=" + congestionWindowBytes
        + ", sent=" + bytesSent + ", received=" + bytesReceived + ", lost=" + packetsLost
        + ", retransmitted=" + packetsRetransmitted + ", earlyData=" + earlyDataAccepted + '}';
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
    private boolean earlyDataAccepted;

    private Builder(String transport) {
      this.transport = Objects.requireNonNull(transport, "transport");
    }

    /** Sets the agreed Tern protocol version. */
    public Builder protocolVersion(int v) { this.protocolVersion = v; return this; }
    /** Sets this side's address. */
    public Builder localAddress(SocketAddress a) { this.localAddress = a; return this; }
    /** Sets the peer's address. */
    public Builder remoteAddress(SocketAddress a) { this.remoteAddress = a; return this; }
    /** Sets the smoothed RTT in nanoseconds. */
    public Builder smoothedRttNanos(long v) { this.smoothedRttNanos = v; return this; }
    /** Sets the minimum RTT in nanoseconds. */
    public Builder minRttNanos(long v) { this.minRttNanos = v; return this; }
    /** Sets the congestion window in bytes. */
    public Builder congestionWindowBytes(long v) { this.congestionWindowBytes = v; return this; }
    /** Sets the bytes sent. */
    public Builder bytesSent(long v) { this.bytesSent = v; return this; }
    /** Sets the bytes received. */
    public Builder bytesReceived(long v) { this.bytesReceived = v; return this; }
    /** Sets the packets sent. */
    public Builder packetsSent(long v) { this.packetsSent = v; return this; }
    /** Sets the packets declared lost. */
    public Builder packetsLost(long v) { this.packetsLost = v; return this; }
    /** Sets the packets that carried retransmitted data. */
    public Builder packetsRetransmitted(long v) { this.packetsRetransmitted = v; return this; }
    /** Sets whether the server accepted this connection's 0-RTT data. */
    public Builder earlyDataAccepted(boolean v) { this.earlyDataAccepted = v; return this; }

    /** The snapshot. */
    public ConnectionInfo build() {
      return new ConnectionInfo(this);
    }
  }
}
