package dev.tern.transport.tcp;

import dev.tern.rpc.spi.LogNoise;
import dev.tern.rpc.spi.ThrottledLog;
import java.util.logging.Logger;

/**
 * Keeps the chatter of the grpc-java channels and servers inside this transport out of the
 * application's log (see {@link LogNoise}): the messages below go to {@code dev.tern.transport.tcp}
 * at FINE.
 */
final class QuietGrpcLogs {
  /** Where the moved messages go. */
  static final Logger TERN = Logger.getLogger("dev.tern.transport.tcp");
  /** Connections that failed for a protocol error of the peer's (not HTTP/2, a malformed frame). */
  static final ThrottledLog MALFORMED = new ThrottledLog(TERN, "tcp: connection failed (protocol error)",
      ThrottledLog.DEFAULT_INTERVAL_NANOS);

  static {
    // After a call fails in Tern's call layer (RESOURCE_EXHAUSTED for a too-large message, say),
    // grpc-java still hears the server's trailers for the stream it already closed.
    LogNoise.demote("io.grpc.internal.AbstractClientStream", "Received trailers on closed stream", TERN);
    // A client that is not HTTP/2 (TLS to a plaintext port, a port scanner): the client is told.
    // Counted and logged at most once per 10 s: a peer can make one per connection at will.
    LogNoise.demoteThrottled("io.grpc.netty.NettyServerTransport.connections", "Transport failed", MALFORMED);
    // Once per JVM where no network interface has a MAC address (containers): Netty then uses
    // random bytes for its channel ids, which is all Tern needs.
    LogNoise.demote("io.netty.util.internal.MacAddressUtil", "Failed to find a usable hardware address", TERN);
  }

  private QuietGrpcLogs() {}

  /** Installs the filters once (class initialisation does it). */
  static void install() {}
}
