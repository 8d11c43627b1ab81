package dev.tern.bench.soak;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One sample of the run: the process's resources, and per transport what happened since the
 * previous sample.
 *
 * @param seconds seconds since the run began
 * @param heapAfterGcMiB heap in use after a full collection
 * @param threads live threads
 * @param fds open file descriptors
 * @param rssMiB resident set size
 * @param fault the faults whose windows overlapped the interval since the previous sample, joined
 *     by {@code +}; empty if none
 * @param transports per transport, in the run's order
 */
record Sample(double seconds, double heapAfterGcMiB, int threads, int fds, double rssMiB, String fault,
    Map<String, PerTransport> transports) {

  /**
   * One transport's figures for a sample's interval; call counts from the metrics registry.
   *
   * @param ok the channel's calls that ended OK in the interval (the faults' own calls included)
   * @param failed the channel's calls that ended otherwise, by status code (the {@code none}
   *     transport's, calls that never got a stream, included)
   * @param serverFailed the server's calls on this transport that ended other than OK, by code
   * @param serverRefused the server transport's refusals in the interval, by reason
   * @param unaryCalls steady unary calls that completed in the interval
   * @param unaryP50Ms their median latency (NaN if none)
   * @param unaryP99Ms their 99th percentile (NaN if none)
   * @param activeClient the channel's calls in progress at the sample
   * @param activeServer the server's calls in progress at the sample
   * @param connectionsClient the channel's open connections at the sample
   * @param connectionsServer the server's open connections at the sample
   * @param loadFailed steady-load calls (unary, download, chat) that failed in the interval
   * @param skipped steady-load calls not made in the interval because their bound was reached
   */
  record PerTransport(long ok, Map<String, Long> failed, Map<String, Long> serverFailed,
      Map<String, Long> serverRefused, long unaryCalls, double unaryP50Ms, double unaryP99Ms, long activeClient,
      long activeServer, long connectionsClient, long connectionsServer, long loadFailed, long skipped) {

    /** Calls failed in the interval on the channel, whatever their code. */
    long failedTotal() {
      return failed.values().stream().mapToLong(Long::longValue).sum();
    }

    /** As a JSON-ready map. */
    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("ok", ok);
      m.put("failed", failed);
      m.put("serverFailed", serverFailed);
      m.put("serverRefused", serverRefused);
      m.put("unaryCalls", unaryCalls);
      m.put("unaryP50Ms", unaryP50Ms);
      m.put("unaryP99Ms", unaryP99Ms);
      m.put("activeCalls", pair(activeClient, activeServer));
      m.put("connections", pair(connectionsClient, connectionsServer));
      m.put("loadFailed", loadFailed);
      m.put("skipped", skipped);
      return m;
    }
  }

  private static Map<String, Object> pair(long client, long server) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("client", client);
    m.put("server", server);
    return m;
  }

  /** As a JSON-ready map. */
  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", seconds);
    m.put("heapAfterGcMiB", heapAfterGcMiB);
    m.put("threads", threads);
    m.put("fds", fds);
    m.put("rssMiB", rssMiB);
    m.put("fault", fault);
    Map<String, Object> t = new LinkedHashMap<>();
    transports.forEach((k, v) -> t.put(k, v.toJson()));
    m.put("transports", t);
    return m;
  }
}
