package dev.tern.transport.quic;

import dev.tern.rpc.ConnectionInfo;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionPathStats;
import io.netty.handler.codec.quic.QuicConnectionStats;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Builds {@link ConnectionInfo} snapshots from quiche's connection and path statistics. */
final class QuicStats {
  private static final long WAIT_MILLIS = 1000;

  private QuicStats() {}

  /**
   * A snapshot of {@code channel} (null: not connected yet). Off the channel's event loop this
   * waits up to a second for the statistics; on it they are read at once.
   */
  static ConnectionInfo snapshot(QuicChannel channel, int version, boolean earlyData) {
    ConnectionInfo.Builder b = ConnectionInfo.builder(QuicTransportProvider.NAME).protocolVersion(version)
        .earlyDataAccepted(earlyData);
    if (channel == null) {
      return b.build();
    }
    b.localAddress(channel.localSocketAddress()).remoteAddress(channel.remoteSocketAddress());
    if (!channel.isOpen()) {
      return b.build();
    }
    QuicConnectionStats stats = await(channel.collectStats());
    if (stats != null) {
      b.bytesSent(stats.sentBytes()).bytesReceived(stats.recvBytes()).packetsSent(stats.sent())
          .packetsLost(stats.lost()).packetsRetransmitted(stats.retrans());
    }
    QuicConnectionPathStats path = await(channel.collectPathStats(0));
    if (path != null) {
      // quiche reports the path's smoothed RTT in nanoseconds and its congestion window in bytes.
      b.smoothedRttNanos(path.rtt()).congestionWindowBytes(path.cwnd());
    }
    return b.build();
  }

  private static <T> T await(Future<T> f) {
    if (!f.isDone() && !f.awaitUninterruptibly(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
      return null;
    }
    return f.isSuccess() ? f.getNow() : null;
  }
}
