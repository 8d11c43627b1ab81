package dev.tern.transport.quic;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.TransportEvents;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionPathStats;
import io.netty.handler.codec.quic.QuicConnectionStats;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection's counters from quiche's connection and path statistics, cached so that reading
 * them never waits and never crosses to the event loop: {@link ConnectionInfo} snapshots (which
 * the call layer takes for every call's attributes and every server call) read the cache.
 *
 * <p>The cache is refreshed on the connection's event loop, where quiche answers at once: when
 * the connection turns ready, whenever one of its streams ends, and when a reader finds it older
 * than {@link #MAX_AGE_NANOS}: at once for a reader on the loop, otherwise in a task queued for
 * the loop (that reader gets the cached values; the next read sees the new ones).
 *
 * <p>Each refresh also reports to the transport's {@link TransportEvents} the packets quiche has
 * declared lost since the last one ({@link QuicConnectionStats#lost()}; their data goes out again
 * in new packets, RFC 9002 §6), and so does the connection's close, with quiche's statistics as
 * they were at the close: a connection's whole count is in once it has closed, earlier counts
 * arrive as its streams end.
 */
final class QuicStats {
  /** A read that finds the counters older than this queues a refresh. */
  static final long MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** Counters as of one refresh; -1 where not known yet. */
  private static final class Counters {
    static final Counters NONE = new Counters(-1, -1, -1, -1, -1, -1, -1, Long.MIN_VALUE / 2);
    final long bytesSent;
    final long bytesReceived;
    final long packetsSent;
    final long packetsLost;
    final long packetsRetransmitted;
    final long smoothedRttNanos;
    final long congestionWindowBytes;
    final long takenAtNanos;

    Counters(long bytesSent, long bytesReceived, long packetsSent, long packetsLost, long packetsRetransmitted,
        long smoothedRttNanos, long congestionWindowBytes, long takenAtNanos) {
      this.bytesSent = bytesSent;
      this.bytesReceived = bytesReceived;
      this.packetsSent = packetsSent;
      this.packetsLost = packetsLost;
      this.packetsRetransmitted = packetsRetransmitted;
      this.smoothedRttNanos = smoothedRttNanos;
      this.congestionWindowBytes = congestionWindowBytes;
      this.takenAtNanos = takenAtNanos;
    }
  }

  private final AtomicBoolean refreshQueued = new AtomicBoolean();
  private final Runnable queuedRefresh = () -> {
    refreshQueued.set(false);
    refresh();
  };
  private volatile QuicChannel channel;
  private volatile Counters counters = Counters.NONE;
  private final TransportEvents events;
  /** Lost packets reported so far; on the loop. */
  private long lostReported;

  /**
   * Statistics for one connection, attached later.
   *
   * @param events where lost packets are reported
   */
  QuicStats(TransportEvents events) {
    this.events = events;
  }

  /** Reads statistics from {@code channel} from now on (a client learns its channel late). */
  void attach(QuicChannel channel) {
    this.channel = channel;
    channel.closeFuture().addListener(f -> reportAtClose(channel));
  }

  /** Reports what quiche lost since the last refresh, from its statistics at the close; on the loop. */
  private void reportAtClose(QuicChannel ch) {
    QuicConnectionStats stats;
    try {
      stats = now(ch.collectStats()); // Netty keeps the statistics of the close for this
    } catch (RuntimeException e) {
      return; // a connection that never began has none
    }
    if (stats != null) {
      reportLost(stats.lost());
    }
  }

  private void reportLost(long lost) {
    if (lost > lostReported) {
      events.retransmitted(lost - lostReported);
      lostReported = lost;
    }
  }

  /**
   * Reads quiche's statistics into the cache. On the channel's event loop, where Netty answers
   * both queries at once; elsewhere it only queues the read.
   */
  void refresh() {
    QuicChannel ch = channel;
    if (ch == null || !ch.isOpen()) {
      return;
    }
    if (!ch.eventLoop().inEventLoop()) {
      queueRefresh(ch);
      return;
    }
    QuicConnectionStats stats = now(ch.collectStats());
    QuicConnectionPathStats path = now(ch.collectPathStats(0));
    if (stats != null) {
      reportLost(stats.lost());
    }
    Counters old = counters;
    counters = new Counters(
        stats != null ? stats.sentBytes() : old.bytesSent,
        stats != null ? stats.recvBytes() : old.bytesReceived,
        stats != null ? stats.sent() : old.packetsSent,
        stats != null ? stats.lost() : old.packetsLost,
        stats != null ? stats.retrans() : old.packetsRetransmitted,
        // quiche reports the path's smoothed RTT in nanoseconds and its congestion window in bytes.
        path != null ? path.rtt() : old.smoothedRttNanos,
        path != null ? path.cwnd() : old.congestionWindowBytes,
        System.nanoTime());
  }

  private void queueRefresh(QuicChannel ch) {
    if (refreshQueued.compareAndSet(false, true) && !EventLoops.run(ch.eventLoop(), queuedRefresh)) {
      refreshQueued.set(false);
    }
  }

  /**
   * A snapshot from the cache, on any thread, without waiting.
   *
   * @param version the agreed Tern protocol version, 0 if none yet
   * @param earlyData whether 0-RTT was attempted (client) or used (server)
   */
  ConnectionInfo snapshot(int version, boolean earlyData) {
    ConnectionInfo.Builder b = ConnectionInfo.builder(QuicTransportProvider.NAME).protocolVersion(version)
        .earlyDataAccepted(earlyData);
    QuicChannel ch = channel;
    if (ch == null) {
      return b.build();
    }
    b.localAddress(ch.localSocketAddress()).remoteAddress(ch.remoteSocketAddress());
    javax.net.ssl.SSLEngine engine = ch.sslEngine();
    if (engine != null) {
      b.sslSession(engine.getSession());
    }
    if (ch.isOpen() && System.nanoTime() - counters.takenAtNanos > MAX_AGE_NANOS) {
      refresh(); // at once on the loop (at most once per MAX_AGE_NANOS), else queued
    }
    Counters c = counters;
    return b.bytesSent(c.bytesSent).bytesReceived(c.bytesReceived).packetsSent(c.packetsSent)
        .packetsLost(c.packetsLost).packetsRetransmitted(c.packetsRetransmitted)
        .smoothedRttNanos(c.smoothedRttNanos).congestionWindowBytes(c.congestionWindowBytes).build();
  }

  /** The value of a future Netty completed at once (on the loop); null if it did not succeed. */
  private static <T> T now(Future<T> f) {
    return f.isDone() && f.isSuccess() ? f.getNow() : null;
  }
}
