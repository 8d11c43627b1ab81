package dev.tern.bench.scenario;

import dev.tern.bench.report.Ci;
import dev.tern.bench.report.Row;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Turns raw per-repetition results into report rows: percentiles per repetition summarised with a
 * 95% interval, each beside the link's ideal and the reference variant; histograms merged over
 * repetitions for the CDF plots. A figure better than the link's physical floor is recorded as a
 * violation: it can only come from a measurement bug, and fails the run.
 */
final class Aggregator {
  private static final double[] PERCENTILES = {50, 95, 99, 100};
  private static final String[] P_NAMES = {"p50", "p95", "p99", "max"};

  private final List<Row> rows = new ArrayList<>();
  private final Map<String, Histogram> merged = new LinkedHashMap<>();
  private final List<String> violations = new ArrayList<>();

  /** Adds one variant's results on one profile; {@code reference} is the reference variant's, or null. */
  void add(LinkSpec link, String variant, RawResults raw, RawResults reference) {
    latency(link, variant, raw, reference, "unary", "seq", link.idealExchangeMillis(1024, 1024),
        link.floorExchangeMillis(1024, 1024));
    latency(link, variant, raw, reference, "unary", "c16", link.idealExchangeMillis(1024, 1024),
        link.floorExchangeMillis(1024, 1024));
    metric(link, variant, raw, reference, "unary", "ipdv_down_ms", "ms", 0, true);
    latency(link, variant, raw, reference, "feed", "api", link.idealExchangeMillis(2048, 8192),
        link.floorExchangeMillis(2048, 8192));
    latency(link, variant, raw, reference, "feed", "image", link.idealExchangeMillis(20, FeedScenario.MIN_IMAGE),
        link.floorExchangeMillis(20, FeedScenario.MIN_IMAGE));
    metric(link, variant, raw, reference, "feed", "bytes_after_cancel_per_image", "B", 0, true);
    metric(link, variant, raw, reference, "feed", "bytes_committed_after_cancel_per_image", "B", 0, true);
    metric(link, variant, raw, reference, "feed", "images_capped", "images", 0, true);
    double goodputIdeal = link.idealGoodputBitsPerSecond() / 1e6;
    metric(link, variant, raw, reference, "bulk", "goodput_mbps", "Mbit/s", goodputIdeal, false);
    metric(link, variant, raw, reference, "bulk", "steady_goodput_mbps", "Mbit/s", goodputIdeal, false);
    metric(link, variant, raw, reference, "bulk", "completion_ms", "ms", Double.NaN, true);
    metric(link, variant, raw, reference, "bulk", "ipdv_ms", "ms", 0, true);
    metric(link, variant, raw, reference, "bulk", "capped", "reps", 0, true);
    latency(link, variant, raw, reference, "setup", "cold", link.idealExchangeMillis(1024, 1024),
        link.floorExchangeMillis(1024, 1024));
    latency(link, variant, raw, reference, "setup", "resumed", link.idealExchangeMillis(1024, 1024),
        link.floorExchangeMillis(1024, 1024));
    metric(link, variant, raw, reference, "setup", "round_trips", "RTT", 1, true);
    latency(link, variant, raw, reference, "scale", "active", link.idealExchangeMillis(1024, 1024),
        link.floorExchangeMillis(1024, 1024));
    for (String m : List.of("heap_per_conn_kib", "rss_per_conn_kib")) {
      metric(link, variant, raw, reference, "scale", m, "KiB", Double.NaN, true);
    }
    metric(link, variant, raw, reference, "scale", "cpu_per_conn_ms", "ms", Double.NaN, true);
    metric(link, variant, raw, reference, "scale", "cpu_per_call_us", "µs", Double.NaN, true);
    metric(link, variant, raw, reference, "scale", "active_calls", "calls", Double.NaN, false);
    metric(link, variant, raw, reference, "scale", "idle_failed", "conns", 0, true);
    metric(link, variant, raw, reference, "scale", "active_failed_calls", "calls", 0, true);
    metric(link, variant, raw, reference, "migration", "survived", "reps", 1, false);
    metric(link, variant, raw, reference, "migration", "call_failed", "reps", 0, true);
    metric(link, variant, raw, reference, "migration", "stall_ms", "ms", Double.NaN, true);
    metric(link, variant, raw, reference, "migration", "bytes_after_move", "B", Double.NaN, false);
    metric(link, variant, raw, reference, "migration", "completion_ms", "ms", Double.NaN, true);
    metric(link, variant, raw, reference, "migration", "move_ms", "ms", Double.NaN, true);
    metric(link, variant, raw, reference, "migration", "new_connection_ok", "reps", 1, false);
    metric(link, variant, raw, reference, "migration", "stalled", "reps", 0, true);
    latency(link, variant, raw, reference, "fallback", "first", link.idealExchangeMillis(1024, 1024),
        link.floorExchangeMillis(1024, 1024));
    metric(link, variant, raw, reference, "fallback", "call_failed", "reps", 0, true);
    metric(link, variant, raw, reference, "fallback", "failure_ms", "ms", Double.NaN, true);
    for (String t : List.of("tcp", "quic", "udp")) {
      metric(link, variant, raw, reference, "fallback", "carried_by_" + t, "reps", Double.NaN, false);
    }
    for (String s : List.of("unary", "feed", "bulk", "setup", "scale", "migration", "fallback")) {
      metric(link, variant, raw, reference, s, "failed", "reps", 0, true);
    }
    for (String n : raw.notes) {
      violations.add(link.name() + " " + variant + " error: " + n);
    }
    if (!link.trace() && link.downBitsPerSecond() > 0) {
      checkGoodput(link, variant, raw, "goodput_mbps", "goodput_window_ms", BulkScenario.CHUNK);
      checkGoodput(link, variant, raw, "steady_goodput_mbps", "steady_window_ms", 0);
    }
  }

  /**
   * No repetition's goodput may beat the link's raw rate. Over a window of T ms the delay wander can
   * squeeze arrivals by up to the jitter, so the bound is rate x T / (T - jitter). Loss is left out
   * of the bound: bursty loss may spare a short window entirely. A goodput counted in messages
   * ({@code message} bytes each) may also hold most of one message that crossed the link before
   * the window opened: behind a loss, TCP holds back a message's first segments until the
   * retransmission completes it, so it is delivered, and counted, after the messages released
   * with that retransmission. The bound allows that message once; over a full run's window (tens
   * of messages) it adds a few percent, over the smoke run's (two or three) it adds much more.
   */
  private void checkGoodput(LinkSpec link, String variant, RawResults raw, String metric, String windowMetric,
      int message) {
    double[] g = raw.metrics.get("bulk " + metric);
    double[] w = raw.metrics.get("bulk " + windowMetric);
    if (g == null) {
      return;
    }
    for (int i = 0; i < g.length; i++) {
      if (Double.isNaN(g[i])) {
        continue;
      }
      double windowMs = w == null || Double.isNaN(w[i]) ? Double.POSITIVE_INFINITY : w[i];
      double squeeze = windowMs > link.jitterMillis() ? windowMs / (windowMs - link.jitterMillis())
          : Double.POSITIVE_INFINITY;
      double limit = link.downBitsPerSecond() / 1e6 * (Double.isInfinite(windowMs) ? 1 : squeeze)
          + (Double.isInfinite(windowMs) ? 0 : message * 8 / (windowMs * 1e3));
      if (g[i] > limit) {
        violations.add(String.format(Locale.ROOT, "%s %s bulk %s rep %d: %.3f Mbit/s exceeds the link's %.3f",
            link.name(), variant, metric, i, g[i], limit));
      }
    }
  }

  List<Row> rows() {
    return rows;
  }

  /** Histograms merged over repetitions, keyed {@code profile|scenario series|variant}. */
  Map<String, Histogram> merged() {
    return merged;
  }

  /** Figures better than physically possible, and errors; non-empty fails the run. */
  List<String> violations() {
    return violations;
  }

  private void latency(LinkSpec link, String variant, RawResults raw, RawResults ref, String scenario,
      String series, double idealMs, double floorMs) {
    // One connection per repetition in setup: only its median and worst case say anything.
    boolean few = scenario.equals("setup") || scenario.equals("fallback");
    Histogram[] hs = raw.histograms.get(scenario + " " + series);
    if (hs == null) {
      return;
    }
    Histogram all = Recorder.newHistogram();
    for (Histogram h : hs) {
      if (h != null) {
        all.add(h);
      }
    }
    if (all.getTotalCount() == 0) {
      return;
    }
    merged.put(link.name() + "|" + scenario + " " + series + "|" + variant, all);
    if (link.shaped() && all.getMinValue() / 1000.0 < floorMs) {
      violations.add(String.format(Locale.ROOT, "%s %s %s %s: fastest call %.1f ms is below the link's floor %.1f ms",
          link.name(), variant, scenario, series, all.getMinValue() / 1000.0, floorMs));
    }
    Histogram[] refHs = ref == null ? null : ref.histograms.get(scenario + " " + series);
    for (int i = 0; i < PERCENTILES.length; i++) {
      if (few && (i == 1 || i == 2)) {
        continue;
      }
      Ci ci = Ci.of(percentiles(hs, PERCENTILES[i]));
      double refMean = refHs == null ? Double.NaN : meanOrNan(percentiles(refHs, PERCENTILES[i]));
      double ideal = link.shaped() ? idealMs : Double.NaN;
      rows.add(new Row(link.name(), scenario, series + " " + P_NAMES[i], variant, "ms", ci, ideal,
          ci.mean() / ideal, ci.mean() / refMean, true));
    }
  }

  private void metric(LinkSpec link, String variant, RawResults raw, RawResults ref, String scenario, String name,
      String unit, double ideal, boolean lowerIsBetter) {
    double[] v = raw.metrics.get(scenario + " " + name);
    if (v == null || allNan(v)) {
      return;
    }
    Ci ci = Ci.of(v);
    double[] rv = ref == null ? null : ref.metrics.get(scenario + " " + name);
    double refMean = rv == null ? Double.NaN : meanOrNan(rv);
    double id = unit.equals("Mbit/s") && !link.shaped() ? Double.NaN : ideal;
    rows.add(new Row(link.name(), scenario, name, variant, unit, ci, id,
        id > 0 ? ci.mean() / id : Double.NaN, refMean > 0 ? ci.mean() / refMean : Double.NaN, lowerIsBetter));
  }

  private static double[] percentiles(Histogram[] hs, double p) {
    double[] out = new double[hs.length];
    for (int i = 0; i < hs.length; i++) {
      out[i] = hs[i] == null || hs[i].getTotalCount() == 0 ? Double.NaN
          : (p >= 100 ? hs[i].getMaxValue() : hs[i].getValueAtPercentile(p)) / 1000.0;
    }
    return out;
  }

  private static boolean allNan(double[] v) {
    for (double d : v) {
      if (!Double.isNaN(d)) {
        return false;
      }
    }
    return true;
  }

  private static double meanOrNan(double[] v) {
    return allNan(v) ? Double.NaN : Ci.of(v).mean();
  }
}
