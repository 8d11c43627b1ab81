package dev.tern.transport.quic;

import dev.tern.rpc.spi.LogNoise;
import dev.tern.rpc.spi.ThrottledLog;
import java.util.logging.Logger;

/** Keeps Netty's once-per-JVM chatter out of the application's log (see {@link LogNoise}). */
final class QuietNettyLogs {
  static {
    // Where no network interface has a MAC address (containers): Netty uses random bytes for its
    // channel ids, which is all Tern needs.
    LogNoise.demote("io.netty.util.internal.MacAddressUtil", "Failed to find a usable hardware address",
        Logger.getLogger("dev.tern.transport.quic"));
    // Per packet, with a stack trace, when FINE is on: a sender of junk decides how often.
    LogNoise.demoteThrottled("io.netty.handler.codec.quic.QuicheQuicCodec", "Error while processing QUIC packet",
        MalformedDatagrams.DROPPED);
    // Per Initial with a bad token, with the token's bytes; the server counts those itself.
    LogNoise.demoteThrottled("io.netty.handler.codec.quic.QuicheQuicServerCodec", "invalid token",
        new ThrottledLog(Logger.getLogger("dev.tern.transport.quic"), "quic: Netty dropped an Initial with an invalid token",
            ThrottledLog.DEFAULT_INTERVAL_NANOS));
  }

  private QuietNettyLogs() {}

  /** Installs the filter once (class initialisation does it). */
  static void install() {}
}
