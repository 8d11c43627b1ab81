package dev.tern.bench.scenario;

import java.util.List;

/**
 * The {@code ip} commands that move the client namespace to a new source address while the
 * emulator runs: the server namespace first learns a route back to the new address, the client
 * gains it, its route to the server prefers it as source, and the old address is removed (which
 * leaves sockets bound to it without an address). The forwarder carries IP packets whatever their
 * addresses, so nothing else changes. Addresses stay inside the benchmarking range 198.18.0.0/15.
 */
final class ClientAddressMove {
  private ClientAddressMove() {}

  /** The address of the {@code n}-th move (n from 1): {@code 198.18.<n+1>.1}. */
  static String address(int n) {
    if (n < 1 || n > 250) {
      throw new IllegalArgumentException("move number must be in 1..250, was " + n);
    }
    return "198.18." + (n + 1) + ".1";
  }

  /** Commands, in order, that move the client from {@code from} to {@code to}. */
  static List<List<String>> commands(String clientNs, String serverNs, String device, String from, String to,
      String server) {
    return List.of(
        List.of("ip", "-n", serverNs, "route", "replace", to + "/32", "dev", device),
        // The new address shares the old one's peer prefix, so it is a secondary: without promotion,
        // removing the primary would remove it too.
        List.of("ip", "netns", "exec", clientNs, "sysctl", "-q", "-w",
            "net.ipv4.conf." + device + ".promote_secondaries=1"),
        // Point-to-point like the emulator's own address, so every address is removed the same way.
        List.of("ip", "-n", clientNs, "addr", "add", to, "peer", server + "/32", "dev", device),
        List.of("ip", "-n", clientNs, "route", "replace", server + "/32", "dev", device, "src", to),
        List.of("ip", "-n", clientNs, "addr", "del", from, "peer", server + "/32", "dev", device),
        // Deleting the old address may take the route with it; put it back, preferring the new source.
        List.of("ip", "-n", clientNs, "route", "replace", server + "/32", "dev", device, "src", to));
  }
}
