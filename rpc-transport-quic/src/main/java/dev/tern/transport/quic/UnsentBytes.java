package dev.tern.transport.quic;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes an application has written to one stream that have not yet been handed to quiche: a write
 * hops onto the connection's event loop, and until it runs there quiche's stream capacity (the
 * peer's stream window, RFC 9000 §4.1) cannot say no to it. A stream is ready for more only while
 * these stay below {@link #READY_BYTES} and quiche's stream takes more, so an application that
 * writes while {@code isReady()} commits at most about the peer's window plus this much, however
 * much faster it is than the loop. Counted on the writer's thread, released on the loop.
 */
final class UnsentBytes {
  /**
   * Bytes written and not yet handed to quiche past which a stream is not ready. 256 KiB, not
   * grpc-java's 32 KiB: every write here waits for a task on the event loop, and with 32 KiB the
   * loop often found nothing queued, so quiche sent less (the quic streaming benchmark, pooled over
   * 20 iterations each: 13.07 ± 0.62 downloads of 8 MiB per second with 32 KiB, 14.65 ± 0.70 with
   * 256 KiB, 15.26 ± 0.78 before the limit). A stopped reader still holds its writer to about its
   * stream window plus this.
   */
  static final long READY_BYTES = 256 * 1024;

  private final AtomicLong bytes = new AtomicLong();

  /** The bytes a message takes on the stream, framed and not compressed. */
  static int framedSize(java.nio.ByteBuffer message) {
    return MessageFraming.HEADER_BYTES + message.remaining();
  }

  /** Counts {@code n} bytes written (any thread); false if they reach the limit. */
  boolean add(int n) {
    return bytes.addAndGet(n) < READY_BYTES;
  }

  /** The loop handed {@code n} counted bytes to quiche, or dropped them. */
  void taken(int n) {
    bytes.addAndGet(-n);
  }

  /** Whether the bytes not yet handed over are below the limit. */
  boolean belowLimit() {
    return bytes.get() < READY_BYTES;
  }
}
