package dev.tern.transport.quic;

import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.lang.reflect.Method;

/**
 * Asks quiche whether the peer has stopped a stream, through the one stream query Netty keeps
 * package-private ({@code QuicheQuicChannel.streamCapacity}, which returns quiche's error for a
 * stopped or already collected stream).
 *
 * <p>Why: once a request's FIN has been read, a client's cancel arrives only as STOP_SENDING;
 * quiche then resets and collects the stream, and Netty tells the stream channel nothing (its
 * writes just queue). When the method cannot be reached (Netty on the module path, a newer Netty),
 * {@link #available()} is false and the transport falls back to writing a reserved HTTP/3 frame,
 * whose failed write reveals a STOP_SENDING before collection.
 */
final class StreamLiveness {
  private static final Method STREAM_CAPACITY = find();
  /** quiche's QUICHE_ERR_DONE: no capacity now, the stream is fine. */
  private static final long QUICHE_ERR_DONE = -1;

  private StreamLiveness() {}

  private static Method find() {
    try {
      Class<?> c = Class.forName("io.netty.handler.codec.quic.QuicheQuicChannel");
      Method m = c.getDeclaredMethod("streamCapacity", long.class);
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException unavailable) {
      return null;
    }
  }

  static boolean available() {
    return STREAM_CAPACITY != null;
  }

  /**
   * True when quiche reports {@code stream} stopped or gone. Call on the stream's event loop; false
   * when it cannot tell.
   */
  static boolean stoppedByPeer(QuicStreamChannel stream) {
    QuicChannel parent = stream.parent();
    if (STREAM_CAPACITY == null || !parent.isOpen()) {
      return false;
    }
    try {
      long capacity = (long) STREAM_CAPACITY.invoke(parent, stream.streamId());
      return capacity < 0 && capacity != QUICHE_ERR_DONE;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }
}
