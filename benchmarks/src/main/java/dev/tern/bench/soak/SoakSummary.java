package dev.tern.bench.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The run's summary and verdict, from its samples and its failed calls.
 *
 * <p>What counts as growth, and why these tolerances:
 *
 * <ul>
 *   <li>Heap after a full collection: the least-squares slope over the second half of the run
 *       (the first half warms up: JIT, pools, caches, TLS session caches fill), times the second
 *       half's span, must stay within {@link #HEAP_GROWTH_TOLERANCE_MIB}. What is in flight when a
 *       sample collects (up to two 1 MiB downloads and 64 unary calls per transport, buffers in
 *       the transports' queues) moves single samples by a few MiB; the fit averages that out. At
 *       the default rates (3 x 200 unary calls/s) a leak of 16 MiB over a 15-minute half is about
 *       30 bytes per call, so anything a call leaks as an object is caught.
 *   <li>Threads and file descriptors: the smallest value in the first quarter of the second half
 *       against the smallest in its last quarter. The floor, not a single sample: a sample taken
 *       during a fault catches threads and sockets that come and go with it (a reconnection, the
 *       random datagrams' socket). Every executor of the run is a fixed pool, so after warm-up a
 *       floor moves only if something is left behind: {@link #THREAD_GROWTH_TOLERANCE} threads
 *       allows for a lazily started JDK or timer thread, {@link #FD_GROWTH_TOLERANCE} descriptors
 *       for a connection or two that happened to be reopening at each floor.
 *   <li>Any call of the steady load that failed outside every fault window (see {@link
 *       FaultLog}) fails the run: with nothing injected, nothing should fail.
 * </ul>
 */
final class SoakSummary {
  /** Heap after GC may grow at most this much over the second half (fitted), in MiB. */
  static final double HEAP_GROWTH_TOLERANCE_MIB = 16;
  /** The threads' floor may grow at most this much over the second half. */
  static final int THREAD_GROWTH_TOLERANCE = 2;
  /** The open descriptors' floor may grow at most this much over the second half. */
  static final int FD_GROWTH_TOLERANCE = 8;
  /** The label of samples whose interval saw no fault. */
  static final String NO_FAULT = "none";

  final Map<String, Object> json = new LinkedHashMap<>();
  final List<String> violations = new ArrayList<>();

  /**
   * Summarises a run and judges it.
   *
   * @param samples the samples in order (at least one)
   * @param runSeconds the run's planned length
   * @param transports the transports run
   * @param loadFailures the steady load's failed calls: transport, window, code, count
   * @param otherViolations what else already failed the run
   */
  SoakSummary(List<Sample> samples, double runSeconds, List<String> transports,
      Map<String, Map<String, Map<String, Long>>> loadFailures, List<String> otherViolations) {
    if (samples.isEmpty()) {
      violations.add("no samples were taken");
      violations.addAll(otherViolations);
      return;
    }
    List<Sample> half = new ArrayList<>();
    for (Sample s : samples) {
      if (s.seconds() > runSeconds / 2) {
        half.add(s);
      }
    }
    if (half.size() < 2) {
      half = samples.subList(Math.max(0, samples.size() - 2), samples.size());
    }
    double h0 = half.get(0).seconds();
    double h1 = half.get(half.size() - 1).seconds();
    double span = h1 - h0;

    Map<String, Object> heap = series(samples, Sample::heapAfterGcMiB);
    double slope = slopePerMinute(half, Sample::heapAfterGcMiB);
    double growth = slope * span / 60;
    heap.put("secondHalfSlopeMiBPerMin", slope);
    heap.put("secondHalfGrowthMiB", growth);
    heap.put("toleranceMiB", HEAP_GROWTH_TOLERANCE_MIB);
    json.put("heapAfterGcMiB", heap);
    if (growth > HEAP_GROWTH_TOLERANCE_MIB) {
      violations.add(String.format(Locale.ROOT, "heap after GC grew %.1f MiB over the second half (fitted; %.2f "
          + "MiB/min), tolerance %.0f MiB", growth, slope, HEAP_GROWTH_TOLERANCE_MIB));
    }
    json.put("threads", floors(samples, half, h0, h1, "threads", s -> s.threads(), THREAD_GROWTH_TOLERANCE));
    json.put("fds", floors(samples, half, h0, h1, "open file descriptors", s -> s.fds(), FD_GROWTH_TOLERANCE));
    json.put("rssMiB", series(samples, Sample::rssMiB));
    json.put("secondHalfSeconds", List.of(h0, h1));

    Map<String, Object> calls = new LinkedHashMap<>();
    Map<String, Object> metricFailures = new LinkedHashMap<>();
    Map<String, Object> loadTotals = new LinkedHashMap<>();
    for (String t : transports) {
      long ok = 0;
      long failed = 0;
      long unary = 0;
      Map<String, Long> byFault = new LinkedHashMap<>();
      byFault.put(NO_FAULT, 0L);
      for (Fault f : Fault.values()) {
        byFault.put(f.label(), 0L);
      }
      for (Sample s : samples) {
        Sample.PerTransport p = s.transports().get(t);
        if (p == null) {
          continue;
        }
        ok += p.ok();
        failed += p.failedTotal();
        unary += p.unaryCalls();
        byFault.merge(s.fault().isEmpty() ? NO_FAULT : s.fault(), p.failedTotal(), Long::sum);
      }
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("ok", ok);
      c.put("failed", failed);
      c.put("steadyUnaryOk", unary);
      calls.put(t, c);
      metricFailures.put(t, byFault);

      Map<String, Long> totals = new LinkedHashMap<>();
      totals.put(FaultLog.OUTSIDE, 0L);
      for (Fault f : Fault.values()) {
        totals.put(f.label(), 0L);
      }
      Map<String, Map<String, Long>> mine = loadFailures.getOrDefault(t, Map.of());
      mine.forEach((window, codes) -> totals.merge(window,
          codes.values().stream().mapToLong(Long::longValue).sum(), Long::sum));
      loadTotals.put(t, totals);
      long outside = totals.get(FaultLog.OUTSIDE);
      if (outside > 0) {
        violations.add(t + ": " + outside + " calls of the steady load failed outside every fault window "
            + mine.get(FaultLog.OUTSIDE));
      }
    }
    json.put("calls", calls);
    json.put("loadFailures", loadTotals);
    json.put("loadFailuresByCode", loadFailures);
    json.put("metricFailuresBySampleFault", metricFailures);
    violations.addAll(otherViolations);
  }

  private Map<String, Object> floors(List<Sample> all, List<Sample> half, double h0, double h1, String what,
      ToDoubleFunction<Sample> f, int tolerance) {
    Map<String, Object> m = series(all, f);
    double q = (h1 - h0) / 4;
    double first = Double.MAX_VALUE;
    double last = Double.MAX_VALUE;
    for (Sample s : half) {
      if (s.seconds() <= h0 + q) {
        first = Math.min(first, f.applyAsDouble(s));
      }
      if (s.seconds() >= h1 - q) {
        last = Math.min(last, f.applyAsDouble(s));
      }
    }
    long growth = (long) (last - first);
    m.put("secondHalfFloorFirst", (long) first);
    m.put("secondHalfFloorLast", (long) last);
    m.put("secondHalfGrowth", growth);
    m.put("tolerance", tolerance);
    if (growth > tolerance) {
      violations.add(String.format(Locale.ROOT, "%s grew by %d over the second half (floor of its first quarter "
          + "%d, of its last %d), tolerance %d", what, growth, (long) first, (long) last, tolerance));
    }
    return m;
  }

  /** First, last, max and min of one figure over all samples. */
  static Map<String, Object> series(List<Sample> samples, ToDoubleFunction<Sample> f) {
    double max = -Double.MAX_VALUE;
    double min = Double.MAX_VALUE;
    for (Sample s : samples) {
      max = Math.max(max, f.applyAsDouble(s));
      min = Math.min(min, f.applyAsDouble(s));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("first", number(f.applyAsDouble(samples.get(0))));
    m.put("last", number(f.applyAsDouble(samples.get(samples.size() - 1))));
    m.put("max", number(max));
    m.put("min", number(min));
    return m;
  }

  /** Integers as longs (so that JSON shows them without a fraction), the rest as doubles. */
  private static Object number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? (Object) (long) v : (Object) v;
  }

  /** The least-squares slope of {@code f} against time, per minute; 0 for fewer than two samples. */
  static double slopePerMinute(List<Sample> samples, ToDoubleFunction<Sample> f) {
    int n = samples.size();
    if (n < 2) {
      return 0;
    }
    double sx = 0;
    double sy = 0;
    for (Sample s : samples) {
      sx += s.seconds() / 60;
      sy += f.applyAsDouble(s);
    }
    double mx = sx / n;
    double my = sy / n;
    double num = 0;
    double den = 0;
    for (Sample s : samples) {
      double dx = s.seconds() / 60 - mx;
      num += dx * (f.applyAsDouble(s) - my);
      den += dx * dx;
    }
    return den == 0 ? 0 : num / den;
  }
}
