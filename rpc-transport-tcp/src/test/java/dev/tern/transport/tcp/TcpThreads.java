package dev.tern.transport.tcp;

/** Threads that grpc-java shares between channels and servers and releases on its own schedule. */
final class TcpThreads {
  private TcpThreads() {}

  /**
   * grpc-java's shared event loops and executors are released a moment after their last user (its
   * SharedResourceHolder); the termination waiters are idle daemon threads of a cached pool.
   */
  static boolean isShared(Thread thread) {
    String name = thread.getName();
    return name.startsWith("grpc-") || name.startsWith("tern-tcp-termination-");
    // tern-tcp-epoll threads are not listed: they must end once the last transport terminated.
  }
}
