package dev.tern.transport.tcp;

import dev.tern.rpc.ConnectionInfo;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.epoll.EpollTcpInfo;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The client transports' sockets and event loops: Linux epoll where its native library loads, so
 * that the kernel's TCP_INFO can be read (smoothed RTT, congestion window and retransmissions;
 * grpc-java's public API offers no counters of its own), NIO elsewhere. The client makes its own
 * channels in either case, so that a {@link WireCounter} is first in each connection's pipeline.
 * One event loop group serves every client transport; it starts with the first and stops when the
 * last one has terminated.
 */
final class ClientSockets {
  private static EventLoopGroup group;
  private static int users;

  private ClientSockets() {}

  /** Whether epoll's native library loaded on this machine. */
  static boolean epollAvailable() {
    return Epoll.isAvailable();
  }

  /** The shared group (epoll's or NIO's); every call must be matched by one {@link #release()}. */
  static synchronized EventLoopGroup acquire() {
    if (group == null) {
      group = epollAvailable()
          ? new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("tern-tcp-epoll", true),
              EpollIoHandler.newFactory())
          : new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("tern-tcp-nio", true),
              NioIoHandler.newFactory());
    }
    users++;
    return group;
  }

  /** Gives back the group; the last user shuts it down. */
  static synchronized void release() {
    if (--users == 0) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      group = null;
    }
  }

  /** Adds what the kernel knows of {@code socket}'s connection to {@code info}. */
  static void addTcpInfo(EpollSocketChannel socket, ConnectionInfo.Builder info) {
    if (socket == null || !socket.isActive()) {
      return;
    }
    EpollTcpInfo tcp = socket.tcpInfo();
    info.localAddress(socket.localAddress())
        .smoothedRttNanos(TimeUnit.MICROSECONDS.toNanos(tcp.rtt())) // tcpi_rtt: smoothed, in µs
        .congestionWindowBytes(tcp.sndCwnd() * tcp.sndMss())     // tcpi_snd_cwnd is in segments
        .packetsRetransmitted(tcp.totalRetrans());
  }
}
