package dev.tern.bench.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a run's wall time went: per profile and variant, the time of each scenario (summed over
 * repetitions, as the client measured it) and of everything else (the lab, JVM starts, warm-up),
 * for the progress lines and the summary at the end. Thread-safe.
 */
final class PhaseTimes {
  private final Map<String, Map<String, Long>> byRun = new LinkedHashMap<>();
  private final Map<String, Long> wall = new LinkedHashMap<>();
  private final List<String> scenarioOrder = new ArrayList<>();

  /** Adds {@code millis} of {@code scenario} to the run {@code profile} x {@code variant}. */
  synchronized void add(String profile, String variant, String scenario, long millis) {
    byRun.computeIfAbsent(key(profile, variant), k -> new LinkedHashMap<>()).merge(scenario, millis, Long::sum);
    if (!scenarioOrder.contains(scenario)) {
      scenarioOrder.add(scenario);
    }
  }

  /** Records the whole wall time of the run {@code profile} x {@code variant}. */
  synchronized void wall(String profile, String variant, long millis) {
    wall.put(key(profile, variant), millis);
    byRun.computeIfAbsent(key(profile, variant), k -> new LinkedHashMap<>());
  }

  /** The summed scenario time of one run so far, in milliseconds. */
  synchronized long scenarioMillis(String profile, String variant) {
    return byRun.getOrDefault(key(profile, variant), Map.of()).values().stream().mapToLong(Long::longValue).sum();
  }

  /** For results.json: "profile variant" to scenario (and {@code other}, {@code total}) to seconds. */
  synchronized Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    byRun.forEach((k, v) -> {
      Map<String, Object> row = new LinkedHashMap<>();
      v.forEach((s, ms) -> row.put(s, ms / 1000.0));
      Long w = wall.get(k);
      if (w != null) {
        row.put("other", (w - scenarioMillis(k)) / 1000.0);
        row.put("total", w / 1000.0);
      }
      m.put(k, row);
    });
    return m;
  }

  /** A Markdown table, seconds per profile x variant and scenario, with a total row. */
  synchronized String table() {
    StringBuilder sb = new StringBuilder("| profile variant |");
    scenarioOrder.forEach(s -> sb.append(' ').append(s).append(" |"));
    sb.append(" other | total |\n|---|");
    scenarioOrder.forEach(s -> sb.append("---|"));
    sb.append("---|---|\n");
    long[] sums = new long[scenarioOrder.size() + 2];
    byRun.forEach((k, v) -> {
      sb.append("| ").append(k).append(" |");
      for (int i = 0; i < scenarioOrder.size(); i++) {
        long ms = v.getOrDefault(scenarioOrder.get(i), 0L);
        sums[i] += ms;
        sb.append(' ').append(sec(ms)).append(" |");
      }
      Long w = wall.get(k);
      long other = w == null ? 0 : w - scenarioMillis(k);
      sums[sums.length - 2] += other;
      sums[sums.length - 1] += w == null ? 0 : w;
      sb.append(' ').append(sec(other)).append(" | ").append(w == null ? "-" : sec(w)).append(" |\n");
    });
    sb.append("| **all** |");
    for (long s : sums) {
      sb.append(' ').append(sec(s)).append(" |");
    }
    return sb.append('\n').toString();
  }

  private long scenarioMillis(String key) {
    return byRun.getOrDefault(key, Map.of()).values().stream().mapToLong(Long::longValue).sum();
  }

  private static String key(String profile, String variant) {
    return profile + " " + variant;
  }

  private static String sec(long ms) {
    return String.format(Locale.ROOT, "%.0f", ms / 1000.0);
  }
}
