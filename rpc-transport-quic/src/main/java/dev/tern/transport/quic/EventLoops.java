package dev.tern.transport.quic;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Event-loop groups of this transport: NIO (portable), daemon threads. */
final class EventLoops {
  private EventLoops() {}

  /**
   * Runs {@code task} on {@code loop}; returns false, dropping it, once the loop has terminated
   * (by then every stream of the loop has been closed and told).
   */
  static boolean run(io.netty.channel.EventLoop loop, Runnable task) {
    try {
      loop.execute(task);
      return true;
    } catch (java.util.concurrent.RejectedExecutionException terminated) {
      return false;
    }
  }

  static EventLoopGroup newGroup(int threads, String name) {
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
  }
}
