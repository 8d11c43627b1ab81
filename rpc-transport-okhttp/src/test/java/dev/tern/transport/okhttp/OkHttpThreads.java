package dev.tern.transport.okhttp;

/** Threads that grpc-java shares between channels and servers and releases on its own schedule. */
final class OkHttpThreads {
  private OkHttpThreads() {}

  /**
   * grpc-okhttp's shared transport executor ({@code grpc-okhttp-N}) and grpc-java's timer are
   * released a moment after their last user (its SharedResourceHolder); the termination waiters
   * are idle daemon threads of a cached pool.
   */
  static boolean isShared(Thread thread) {
    String name = thread.getName();
    return name.startsWith("grpc-") || name.startsWith("tern-okhttp-termination-");
  }
}
