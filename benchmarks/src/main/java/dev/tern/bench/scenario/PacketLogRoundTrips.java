package dev.tern.bench.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Counts the round trips of a connection's opening in netlab's packet log (tab-separated: {@code
 * t_ms dir bytes verdict deliver_ms proto src sport dst dport flags payload}). In each time window
 * the first client-to-server packet from a client port not seen before names the new connection;
 * among that
 * connection's packets that carry a payload or a SYN/FIN, every turn from client-to-server to
 * server-to-client is one round trip. Dropped packets are left out.
 */
final class PacketLogRoundTrips {
  private PacketLogRoundTrips() {}

  static List<Integer> count(Path log, List<double[]> windows) throws IOException {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < windows.size(); i++) {
      out.add(0);
    }
    String[] sport = new String[windows.size()];
    boolean[] lastWasClient = new boolean[windows.size()];
    boolean[] seenAny = new boolean[windows.size()];
    Set<String> knownPorts = new HashSet<>();
    try (BufferedReader r = Files.newBufferedReader(log, StandardCharsets.US_ASCII)) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("#") || line.isBlank()) {
          continue;
        }
        String[] f = line.split("\t");
        if (f.length < 12) {
          continue;
        }
        double t = Double.parseDouble(f[0]);
        boolean c2s = f[1].equals("c2s");
        String clientPort = c2s ? f[7] : f[9];
        boolean delivered = f[3].startsWith("ok") || f[3].startsWith("dup");
        boolean significant = delivered && (!f[11].equals("0") || f[10].contains("S") || f[10].contains("F"));
        for (int w = 0; w < windows.size(); w++) {
          if (t < windows.get(w)[0] || t > windows.get(w)[1]) {
            continue;
          }
          if (sport[w] == null) {
            if (!c2s || knownPorts.contains(clientPort)) {
              continue;
            }
            sport[w] = clientPort;
          }
          if (!sport[w].equals(clientPort) || !significant) {
            continue;
          }
          if (!c2s && seenAny[w] && lastWasClient[w]) {
            out.set(w, out.get(w) + 1);
          }
          lastWasClient[w] = c2s;
          seenAny[w] = true;
        }
        knownPorts.add(clientPort);
      }
    }
    return out;
  }
}
