package dev.tern.transport.tcp;

import dev.tern.rpc.spi.ThrottledLog;
import dev.tern.rpc.spi.TransportEvents;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * One tcp server's listening socket and event loops, with its connection limit: grpc-netty has
 * none, and a server that accepts every connection runs out of file descriptors under a flood of
 * idle ones, after which it refuses everyone. The limit sits in the listening socket's own
 * pipeline, before grpc-netty's acceptor, so a connection beyond it is closed the moment it is
 * accepted, before any HTTP/2 state exists; it is counted, reported to the transport's {@link
 * TransportEvents} as {@link TransportEvents#CONNECTION_LIMIT} and logged at FINE, throttled. The
 * connections already open are untouched. Each connection it lets through gets a {@link
 * WireCounter} first in its pipeline.
 *
 * <p>The event loops are this server's own (grpc-netty insists on both groups when the channel
 * factory is given): epoll where its native library loads, as grpc-netty's default, else NIO.
 */
final class ServerSockets {
  private static final Logger LOG = Logger.getLogger("dev.tern.transport.tcp");

  private final int maxConnections;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final ThrottledLog refused = new ThrottledLog(LOG, "tcp: connection refused (maxConnections reached)",
      ThrottledLog.DEFAULT_INTERVAL_NANOS);
  private final boolean epoll = Epoll.isAvailable();
  private final TransportEvents events;
  private final boolean tls;
  private final int maxResets;
  private final int resetWindowSeconds;
  private final ThrottledLog excessiveResets = new ThrottledLog(LOG,
      "tcp: connection ended for resetting too many streams (rapid reset)", ThrottledLog.DEFAULT_INTERVAL_NANOS);
  final EventLoopGroup boss;
  final EventLoopGroup workers;

  /**
   * @param maxConnections most connections at once; 0 for no limit
   * @param events where the connections' counts are reported
   * @param tls whether the server's connections run TLS
   * @param maxResets RST_STREAM frames a connection may send per window before it is ended
   *     ({@link RapidResetLimit}); 0 for no limit
   * @param resetWindowSeconds the window of {@code maxResets}
   */
  ServerSockets(int maxConnections, TransportEvents events, boolean tls, int maxResets, int resetWindowSeconds) {
    if (maxConnections < 0) {
      throw new IllegalArgumentException("tcp: maxConnections must be >= 0 (0: no limit), was " + maxConnections);
    }
    if (maxResets < 0) {
      throw new IllegalArgumentException("tcp: maxRstFramesPerWindow must be >= 0 (0: no limit), was " + maxResets);
    }
    if (maxResets > 0 && resetWindowSeconds <= 0) {
      throw new IllegalArgumentException("tcp: rstFramesWindowSeconds must be > 0, was " + resetWindowSeconds);
    }
    this.maxResets = maxResets;
    this.resetWindowSeconds = resetWindowSeconds;
    this.maxConnections = maxConnections == 0 ? Integer.MAX_VALUE : maxConnections;
    this.events = events;
    this.tls = tls;
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("tern-tcp-server-boss", true), io);
    // 0: Netty's default, twice the processors, as grpc-netty's shared worker group.
    workers = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("tern-tcp-server", true), io);
  }

  /** Makes listening sockets that enforce the limit. */
  ChannelFactory<ServerChannel> channelFactory() {
    return () -> {
      ServerChannel ch = epoll ? new EpollServerSocketChannel() : new NioServerSocketChannel();
      // First in the pipeline: ServerBootstrap appends its acceptor when the channel registers.
      ch.pipeline().addLast(new Limit());
      return ch;
    };
  }

  /** Connections open now. */
  int open() { return open.get(); }

  /** The most connections open at once so far. */
  int peak() { return peak.get(); }

  /** Connections refused for the limit so far. */
  long refused() { return refused.count(); }

  /** Stops the event loops; once the server has terminated. */
  void shutdown() {
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  /** Sees each accepted connection (a child channel, not yet registered) before grpc-netty does. */
  @ChannelHandler.Sharable
  private final class Limit extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Channel child = (Channel) msg;
      int now = open.incrementAndGet();
      if (now > maxConnections) {
        open.decrementAndGet();
        refused.event(refused.wouldLog() ? "from " + child.remoteAddress() + " (" + (now - 1) + " open)" : null);
        events.refused(TransportEvents.CONNECTION_LIMIT);
        child.unsafe().closeForcibly();
        return;
      }
      WireCounter.install(child, events, true, tls,
          maxResets > 0 ? new RapidResetLimit(maxResets, resetWindowSeconds, events, excessiveResets) : null);
      peak.accumulateAndGet(now, Math::max);
      child.closeFuture().addListener(f -> open.decrementAndGet());
      ctx.fireChannelRead(msg);
    }
  }
}
