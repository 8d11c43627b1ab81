package dev.tern.transport.quic;

import dev.tern.rpc.spi.LogNoise;
import java.util.logging.Logger;

/** Keeps Netty's once-per-JVM chatter out of the application's log (see {@link LogNoise}). */
final class QuietNettyLogs {
  static {
    // Where no network interface has a MAC address (containers): Netty uses random bytes for its
    // channel ids, which is all Tern needs.
    LogNoise.demote("io.netty.util.internal.MacAddressUtil", "Failed to find a usable hardware address",
        Logger.getLogger("dev.tern.transport.quic"));
  }

  private QuietNettyLogs() {}

  /** Installs the filter once (class initialisation does it). */
  static void install() {}
}
