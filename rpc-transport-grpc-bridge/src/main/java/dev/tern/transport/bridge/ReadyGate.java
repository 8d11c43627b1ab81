package dev.tern.transport.bridge;

/**
 * Readiness of a stream before grpc-java has allocated it on the connection. grpc-java reports a
 * new stream as not ready until its transport has created it, a moment after the call started; the SPI
 * promises that a fresh stream on a ready connection accepts writes. Until the first {@code onReady}
 * the stream is ready while less than grpc-java's own on-ready threshold has been written. Guarded by
 * the owning stream's lock.
 */
final class ReadyGate {
  /** grpc-java's default on-ready threshold: 32 KiB queued makes a stream not ready. */
  static final int THRESHOLD_BYTES = 32 * 1024;

  private boolean allocated;
  private long bytesBeforeAllocation;

  void wrote(int bytes) {
    if (!allocated) {
      bytesBeforeAllocation += bytes;
    }
  }

  void allocated() {
    allocated = true;
  }

  /** True while grpc-java has not allocated the stream and little has been written to it. */
  boolean beforeAllocation() {
    return !allocated && bytesBeforeAllocation < THRESHOLD_BYTES;
  }
}
