package dev.tern.bench.soak;

import static dev.tern.bench.report.MarkdownReport.num;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The soak run's Markdown report and its plot. */
final class SoakReport {
  private SoakReport() {}

  /**
   * The Markdown: verdict, summary, errors per transport and fault window, the faults, then a
   * row per sample.
   */
  @SuppressWarnings("unchecked")
  static String markdown(Map<String, Object> json, List<Sample> samples, SoakSummary summary, List<String> transports,
      List<FaultLog.Window> windows) {
    StringBuilder sb = new StringBuilder("# Soak run\n\n");
    Map<String, Object> machine = (Map<String, Object>) json.get("machine");
    Map<String, Object> load = (Map<String, Object>) json.get("load");
    sb.append("- started: ").append(json.get("date")).append('\n');
    sb.append("- command: `java ").append(json.get("command")).append("`\n");
    sb.append(String.format(Locale.ROOT, "- %s s; a sample every %s s; each fault %s s after %s s without one; "
        + "failures up to %s s after a fault count as its own%n", num((Double) json.get("runSeconds")),
        num((Double) json.get("sampleSeconds")), num((Double) json.get("faultSeconds")),
        num((Double) json.get("gapSeconds")), num((Double) json.get("graceSeconds"))));
    sb.append(String.format(Locale.ROOT, "- load per transport: %s unary calls/s of %s B each way (at most %s in "
        + "flight), a %s B download every %s s (at most %s in flight), a chat of a 64 B message every %s s, "
        + "replaced every %s s%n", num((Double) load.get("unaryPerSecond")), load.get("unaryBytes"),
        load.get("maxUnaryInFlight"), load.get("downloadBytes"), num((Double) load.get("downloadEverySeconds")),
        load.get("maxDownloadsInFlight"), num((Double) load.get("chatMessageEverySeconds")),
        load.get("chatReplacedEverySeconds")));
    sb.append("- transports: ").append(String.join(", ", transports));
    Map<String, String> skipped = (Map<String, String>) json.get("skipped");
    if (!skipped.isEmpty()) {
      sb.append(" (skipped: ").append(skipped).append(')');
    }
    sb.append('\n');
    sb.append("- machine: ").append(machine.get("cores")).append(" cores, ").append(machine.get("java"))
        .append(", max heap ").append(machine.get("maxHeapMiB")).append(" MiB; load average at start ")
        .append(machine.get("loadAverageAtStart")).append(", at end ").append(machine.get("loadAverageAtEnd"))
        .append("\n\n");

    sb.append("## Verdict: ").append(summary.violations.isEmpty() ? "passed" : "FAILED").append("\n\n");
    for (String v : summary.violations) {
      sb.append("- ").append(v).append('\n');
    }
    if (samples.isEmpty()) {
      return sb.toString();
    }
    Map<String, Object> s = summary.json;
    List<Double> half = (List<Double>) s.get("secondHalfSeconds");
    sb.append(String.format(Locale.ROOT, "%n## Summary%n%nSecond half: samples from %s s to %s s.%n%n",
        num(half.get(0)), num(half.get(1))));
    sb.append("| figure | first | last | max | over the second half | tolerance |\n");
    sb.append("| --- | --- | --- | --- | --- | --- |\n");
    Map<String, Object> heap = (Map<String, Object>) s.get("heapAfterGcMiB");
    sb.append(String.format(Locale.ROOT, "| heap after GC (MiB) | %s | %s | %s | slope %s MiB/min, fitted growth %s "
        + "MiB | %s MiB |%n", n(heap.get("first")), n(heap.get("last")), n(heap.get("max")),
        num((Double) heap.get("secondHalfSlopeMiBPerMin")), num((Double) heap.get("secondHalfGrowthMiB")),
        n(heap.get("toleranceMiB"))));
    for (String[] k : new String[][] {{"threads", "threads"}, {"fds", "open file descriptors"}}) {
      Map<String, Object> m = (Map<String, Object>) s.get(k[0]);
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | floor %s -> %s (%+d) | %s |%n", k[1],
          n(m.get("first")), n(m.get("last")), n(m.get("max")), m.get("secondHalfFloorFirst"),
          m.get("secondHalfFloorLast"), (Long) m.get("secondHalfGrowth"), m.get("tolerance")));
    }
    Map<String, Object> rss = (Map<String, Object>) s.get("rssMiB");
    sb.append(String.format(Locale.ROOT, "| RSS (MiB) | %s | %s | %s | | |%n", n(rss.get("first")),
        n(rss.get("last")), n(rss.get("max"))));

    List<String> columns = new ArrayList<>();
    columns.add(FaultLog.OUTSIDE);
    for (Fault f : Fault.values()) {
      columns.add(f.label());
    }
    sb.append("\n## Errors per transport and fault window\n\n");
    sb.append("Calls of the steady load (unary, download, chat) that failed, by where they failed (`outside`: in no "
        + "fault window; any there fails the run):\n\n");
    table(sb, transports, columns, (Map<String, Map<String, Long>>) s.get("loadFailures"), "transport");
    Map<String, Map<String, Map<String, Long>>> byCode = (Map<String, Map<String, Map<String, Long>>>)
        s.get("loadFailuresByCode");
    if (!byCode.isEmpty()) {
      sb.append("\nBy status code: ").append(byCode).append('\n');
    }
    List<String> sampleColumns = new ArrayList<>();
    sampleColumns.add(SoakSummary.NO_FAULT);
    for (Fault f : Fault.values()) {
      sampleColumns.add(f.label());
    }
    Map<String, Map<String, Long>> metric = (Map<String, Map<String, Long>>) s.get("metricFailuresBySampleFault");
    for (Map<String, Long> m : metric.values()) {
      for (String k : m.keySet()) {
        if (!sampleColumns.contains(k)) {
          sampleColumns.add(k);
        }
      }
    }
    sb.append("\nEvery call the channels counted failed (the metrics, client side: the storms' own calls "
        + "included), by the fault of the sample's interval (`none`: no fault in it):\n\n");
    table(sb, transports, sampleColumns, metric, "transport");
    Map<String, Map<String, Object>> calls = (Map<String, Map<String, Object>>) s.get("calls");
    sb.append("\nCalls per transport over the run (metrics): ");
    List<String> parts = new ArrayList<>();
    calls.forEach((t, c) -> parts.add(t + " " + c.get("ok") + " OK, " + c.get("failed") + " failed ("
        + c.get("steadyUnaryOk") + " steady unary OK)"));
    sb.append(String.join("; ", parts)).append(".\n");

    sb.append("\n## Faults\n\n| # | fault | start (s) | end (s) | what it did |\n| --- | --- | --- | --- | --- |\n");
    for (FaultLog.Window w : windows) {
      sb.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s |%n", w.index + 1, w.fault.label(),
          num(w.startNanos / 1e9), w.endNanos == Long.MAX_VALUE ? "" : num(w.endNanos / 1e9),
          new java.util.TreeMap<>(w.detail).toString().replace("|", "/")));
    }

    sb.append("\n## Samples\n\nPer transport: calls OK / failed in the interval (metrics, client side), unary p50 / "
        + "p99 (ms) of the steady load, calls in progress (client/server) and connections (client/server) at the "
        + "sample.\n\n| t (s) | fault | heap after GC (MiB) | threads | fds | RSS (MiB) |");
    for (String t : transports) {
      sb.append(' ').append(t).append(" ok/failed | ").append(t).append(" p50/p99 | ").append(t)
          .append(" calls, conns |");
    }
    sb.append("\n| --- | --- | --- | --- | --- | --- |").append(" --- | --- | --- |".repeat(transports.size()))
        .append('\n');
    for (Sample x : samples) {
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d | %s |", num(x.seconds()), x.fault(),
          num(x.heapAfterGcMiB()), x.threads(), x.fds(), num(x.rssMiB())));
      for (String t : transports) {
        Sample.PerTransport p = x.transports().get(t);
        sb.append(String.format(Locale.ROOT, " %d / %d | %s / %s | %d/%d, %d/%d |", p.ok(), p.failedTotal(),
            num(p.unaryP50Ms()), num(p.unaryP99Ms()), p.activeClient(), p.activeServer(), p.connectionsClient(),
            p.connectionsServer()));
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static void table(StringBuilder sb, List<String> rows, List<String> columns,
      Map<String, Map<String, Long>> cells, String first) {
    sb.append("| ").append(first).append(" |");
    for (String c : columns) {
      sb.append(' ').append(c).append(" |");
    }
    sb.append("\n| --- |").append(" --- |".repeat(columns.size())).append('\n');
    for (String r : rows) {
      sb.append("| ").append(r).append(" |");
      Map<String, Long> m = cells.getOrDefault(r, Map.of());
      for (String c : columns) {
        sb.append(' ').append(m.getOrDefault(c, 0L)).append(" |");
      }
      sb.append('\n');
    }
  }

  private static String n(Object v) {
    return v instanceof Number x ? num(x.doubleValue()) : String.valueOf(v);
  }

  /** The plot: heap after GC, RSS, threads, descriptors and the unary p99 per transport over time. */
  static String svg(List<Sample> samples, List<String> transports, List<FaultLog.Window> windows, double runSeconds) {
    int n = samples.size();
    double[] t = new double[n];
    double[] heap = new double[n];
    double[] rss = new double[n];
    double[] threads = new double[n];
    double[] fds = new double[n];
    for (int i = 0; i < n; i++) {
      Sample s = samples.get(i);
      t[i] = s.seconds();
      heap[i] = s.heapAfterGcMiB();
      rss[i] = s.rssMiB();
      threads[i] = s.threads();
      fds[i] = s.fds();
    }
    List<SvgSeries.Line> p99 = new ArrayList<>();
    for (String tr : transports) {
      double[] v = new double[n];
      for (int i = 0; i < n; i++) {
        Sample.PerTransport p = samples.get(i).transports().get(tr);
        v[i] = p == null ? Double.NaN : p.unaryP99Ms();
      }
      p99.add(new SvgSeries.Line(tr, v));
    }
    List<SvgSeries.Panel> panels = List.of(
        new SvgSeries.Panel("heap after GC (MiB)", List.of(new SvgSeries.Line("heap after GC", heap))),
        new SvgSeries.Panel("RSS (MiB)", List.of(new SvgSeries.Line("RSS", rss))),
        new SvgSeries.Panel("live threads", List.of(new SvgSeries.Line("threads", threads))),
        new SvgSeries.Panel("open file descriptors", List.of(new SvgSeries.Line("fds", fds))),
        new SvgSeries.Panel("unary p99 per sample interval (ms)", p99));
    List<SvgSeries.Shade> shades = new ArrayList<>();
    for (FaultLog.Window w : windows) {
      double end = w.endNanos == Long.MAX_VALUE ? runSeconds : w.endNanos / 1e9;
      shades.add(new SvgSeries.Shade(w.fault, w.startNanos / 1e9, end));
    }
    return SvgSeries.render(String.format(Locale.ROOT, "Soak run: %s over %s s, faults shaded",
        String.join(", ", transports), num(runSeconds)), t, panels, shades, runSeconds);
  }
}
