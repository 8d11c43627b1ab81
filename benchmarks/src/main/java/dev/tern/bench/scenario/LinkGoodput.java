package dev.tern.bench.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Steady-state goodput measured on the emulator's clock instead of the client's. netlab's packet
 * log gives, for every packet, the time the link delivers it into the client's namespace ({@code
 * deliver_ms}, the link model's schedule: it does not stall when a JVM does). In each download's
 * window the server-to-client flow carrying the most payload is the download; its delivered
 * payload, in delivery order, is split at the instant half of it had been delivered, and the
 * second half's rate is scaled by application bytes / delivered payload (TLS, HTTP/2 or QUIC
 * framing and retransmitted copies taken out on average). The scale is at most 1, and the
 * second half's delivered payload over its span is bounded by the link's rate, so the figure
 * cannot beat the link however late the client reads its socket.
 */
final class LinkGoodput {
  private LinkGoodput() {}

  /**
   * One download as the link carried it.
   *
   * @param payloadBytes transport payload bytes of the download's flow delivered to the client
   * @param secondHalfBytes of these, those delivered after the half-way instant
   * @param halfMs the instant (log milliseconds) by which half the payload had been delivered
   * @param lastMs the last delivery
   */
  record Download(long payloadBytes, long secondHalfBytes, double halfMs, double lastMs) {

    /** The steady-state goodput in Mbit/s of a download whose application received {@code appBytes}; NaN if unmeasurable. */
    double steadyMbps(double appBytes) {
      double spanMs = lastMs - halfMs;
      if (payloadBytes <= 0 || spanMs <= 0 || appBytes <= 0) {
        return Double.NaN;
      }
      double appShare = Math.min(1.0, appBytes / payloadBytes);
      return secondHalfBytes * appShare * 8 / (spanMs * 1000);
    }

    /** The span of the second half, in milliseconds. */
    double windowMs() {
      return lastMs - halfMs;
    }
  }

  /**
   * Reads {@code log} once and measures the download of each window ({@code [open, close]} in log
   * milliseconds, by repetition); repetitions whose window holds no server-to-client payload are left out.
   */
  static Map<Integer, Download> measure(Path log, Map<Integer, double[]> windows) throws IOException {
    Map<Integer, Map<String, List<double[]>>> flows = new HashMap<>();
    try (BufferedReader r = Files.newBufferedReader(log, StandardCharsets.US_ASCII)) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("#") || line.isBlank()) {
          continue;
        }
        String[] f = line.split("\t");
        if (f.length < 12 || !f[1].equals("s2c") || f[4].equals("-") || f[11].equals("-") || f[11].equals("0")) {
          continue;
        }
        double t = Double.parseDouble(f[0]);
        for (Map.Entry<Integer, double[]> w : windows.entrySet()) {
          if (t >= w.getValue()[0] && t <= w.getValue()[1]) {
            String flow = f[5] + " " + f[7] + ">" + f[9];
            flows.computeIfAbsent(w.getKey(), k -> new HashMap<>()).computeIfAbsent(flow, k -> new ArrayList<>())
                .add(new double[] {Double.parseDouble(f[4]), Long.parseLong(f[11])});
          }
        }
      }
    }
    Map<Integer, Download> out = new TreeMap<>();
    flows.forEach((rep, byFlow) -> {
      List<double[]> best = null;
      long bestBytes = -1;
      for (List<double[]> pkts : byFlow.values()) {
        long b = 0;
        for (double[] p : pkts) {
          b += (long) p[1];
        }
        if (b > bestBytes) {
          bestBytes = b;
          best = pkts;
        }
      }
      out.put(rep, of(best, bestBytes));
    });
    return out;
  }

  /** The download made of {@code packets} ({deliver_ms, payload}), {@code total} payload bytes in all. */
  static Download of(List<double[]> packets, long total) {
    List<double[]> sorted = new ArrayList<>(packets);
    sorted.sort((a, b) -> Double.compare(a[0], b[0]));
    long cum = 0;
    double halfMs = Double.NaN;
    for (double[] p : sorted) {
      cum += (long) p[1];
      if (cum * 2 >= total) {
        halfMs = p[0];
        break;
      }
    }
    return new Download(total, total - cum, halfMs, sorted.get(sorted.size() - 1)[0]);
  }
}
