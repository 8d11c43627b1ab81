package dev.tern.bench.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a cancel could not withdraw, measured on the link: the server's payload bytes that crossed
 * the link after the cancel had reached the server. netlab's packet log gives, for every packet,
 * when it entered the link ({@code t_ms}) and when the link delivered it ({@code deliver_ms}). In
 * each window ({@code [open, close]} in log milliseconds, opened just before the client cancels
 * and closed once a call made after the cancels has come back), the cancel reaches the server
 * when the link delivers the first client-to-server packet that carries a payload and entered
 * after {@code open}; every server-to-client packet that entered the link from then until {@code
 * close} and was delivered counts with its TCP or UDP payload. The feed scenario cancels every
 * image at once and nothing else is loading, so those bytes belong to the cancelled images (apart
 * from the small answer of the call that closes the window and, for QUIC, acknowledgement-only
 * datagrams, whose UDP payload counts too).
 */
final class CancelWaste {
  private CancelWaste() {}

  /** Server payload bytes after the cancel arrived, by window; windows with no client packet after their opening are left out. */
  static Map<Integer, Long> measure(Path log, Map<Integer, double[]> windows) throws IOException {
    Map<Integer, Double> arrival = new TreeMap<>();
    Map<Integer, Long> bytes = new TreeMap<>();
    try (BufferedReader r = Files.newBufferedReader(log, StandardCharsets.US_ASCII)) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("#") || line.isBlank()) {
          continue;
        }
        String[] f = line.split("\t");
        if (f.length < 12 || f[4].equals("-") || f[11].equals("-") || f[11].equals("0")) {
          continue; // dropped, or no payload
        }
        double t = Double.parseDouble(f[0]);
        long payload = Long.parseLong(f[11]);
        for (Map.Entry<Integer, double[]> w : windows.entrySet()) {
          double open = w.getValue()[0];
          double close = w.getValue()[1];
          if (t < open || t > close) {
            continue;
          }
          Double at = arrival.get(w.getKey());
          if (f[1].equals("c2s")) {
            if (at == null) {
              arrival.put(w.getKey(), Double.parseDouble(f[4]));
              bytes.put(w.getKey(), 0L);
            }
          } else if (f[1].equals("s2c") && at != null && t >= at) {
            bytes.merge(w.getKey(), payload, Long::sum);
          }
        }
      }
    }
    return bytes;
  }
}
