package dev.tern.transport.quic;

import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.handler.codec.quic.QuicTransportError;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * How many more bidirectional streams the peer lets this endpoint open (RFC 9000 §4.6: the
 * peer's MAX_STREAMS less the streams opened so far), read before each stream is opened so that a
 * call beyond the limit waits instead of failing.
 *
 * <p>Why not only {@link QuicChannel#peerAllowedStreams}: Netty keeps a copy of quiche's count,
 * lowers it by one per stream it creates and reloads it from quiche only when it is exactly 0 as a
 * packet arrives. Streams opened in 0-RTT before the first packet from the server (the copy is 0
 * then) take it below zero; once the HTTP/3 control streams have done the same to the
 * unidirectional copy, neither is 0 and Netty never reloads them on that connection. So quiche's
 * own count is asked for through Netty's package-private binding ({@code
 * Quiche.quiche_conn_peer_streams_left_bidi}), by reflection; where that cannot be reached (Netty
 * on the module path, a changed Netty) Netty's copy is used, a negative copy or one read before the
 * handshake meaning "unknown" (the stream is tried, and quiche refuses it with STREAM_LIMIT if the
 * peer allows none).
 *
 * <p>A creation quiche refuses is not free: Netty has already taken the next stream id, and the
 * ids skipped count as opened (RFC 9000 §2.1: opening a stream opens every lower one of its type),
 * so each refusal costs the connection one stream of credit for good. Hence the question first.
 */
final class StreamCredit {
  /** The count is not known; try one stream. */
  static final long UNKNOWN = Long.MIN_VALUE;

  /** QuicheQuicChannel.connection, as (QuicChannel) Object; null when unreachable. */
  private static final MethodHandle CONNECTION;
  /** QuicheQuicConnection.isFreed(), as (Object) boolean. */
  private static final MethodHandle IS_FREED;
  /** QuicheQuicConnection.address(), as (Object) long. */
  private static final MethodHandle ADDRESS;
  /** Quiche.quiche_conn_peer_streams_left_bidi(long), as (long) long. */
  private static final MethodHandle LEFT_BIDI;
  private static final Class<?> QUICHE_CHANNEL;

  static {
    MethodHandle connection = null;
    MethodHandle isFreed = null;
    MethodHandle address = null;
    MethodHandle leftBidi = null;
    Class<?> quicheChannel = null;
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      quicheChannel = Class.forName("io.netty.handler.codec.quic.QuicheQuicChannel");
      Class<?> conn = Class.forName("io.netty.handler.codec.quic.QuicheQuicConnection");
      Class<?> quiche = Class.forName("io.netty.handler.codec.quic.Quiche");
      Field f = quicheChannel.getDeclaredField("connection");
      Method freed = conn.getDeclaredMethod("isFreed");
      Method addr = conn.getDeclaredMethod("address");
      Method left = quiche.getDeclaredMethod("quiche_conn_peer_streams_left_bidi", long.class);
      f.setAccessible(true);
      freed.setAccessible(true);
      addr.setAccessible(true);
      left.setAccessible(true);
      connection = lookup.unreflectGetter(f).asType(MethodType.methodType(Object.class, QuicChannel.class));
      isFreed = lookup.unreflect(freed).asType(MethodType.methodType(boolean.class, Object.class));
      address = lookup.unreflect(addr).asType(MethodType.methodType(long.class, Object.class));
      leftBidi = lookup.unreflect(left);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError unavailable) {
      connection = null;
    }
    CONNECTION = connection;
    IS_FREED = isFreed;
    ADDRESS = address;
    LEFT_BIDI = leftBidi;
    QUICHE_CHANNEL = quicheChannel;
  }

  private StreamCredit() {}

  /** Whether quiche's own count can be read (else Netty's copy is used). */
  static boolean exact() {
    return CONNECTION != null;
  }

  /**
   * Bidirectional streams {@code quic} may still open, or {@link #UNKNOWN}. Call on the
   * connection's event loop (quiche's connection is freed there).
   *
   * @param handshakeDone whether the handshake has completed (before it, only quiche knows the
   *     remembered limit that 0-RTT streams are held to)
   */
  static long bidiLeft(QuicChannel quic, boolean handshakeDone) {
    if (CONNECTION != null && quic.getClass() == QUICHE_CHANNEL) {
      try {
        Object conn = (Object) CONNECTION.invokeExact(quic);
        if (conn == null) {
          return 0; // no quiche connection yet: nothing can be opened
        }
        // Netty frees quiche's connection holding this lock; a freed one must not be touched.
        synchronized (conn) {
          if ((boolean) IS_FREED.invokeExact(conn)) {
            return 0;
          }
          return (long) LEFT_BIDI.invokeExact((long) ADDRESS.invokeExact(conn));
        }
      } catch (Throwable e) {
        // Fall through to Netty's copy.
      }
    }
    long cached = quic.peerAllowedStreams(QuicStreamType.BIDIRECTIONAL);
    return cached < 0 || !handshakeDone ? UNKNOWN : cached;
  }

  /** Whether {@code cause} is quiche refusing a new stream for the peer's stream limit. */
  static boolean isStreamLimit(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof QuicException && ((QuicException) t).error() == QuicTransportError.STREAM_LIMIT_ERROR) {
        return true;
      }
      String m = t.getMessage();
      if (m != null && m.contains("STREAM_LIMIT")) {
        return true;
      }
    }
    return false;
  }
}
