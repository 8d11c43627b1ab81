package dev.tern.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The results as Markdown: per profile and scenario a table with a row per metric and a column per
 * variant, each cell "mean ± 95% half-interval (x ideal, x reference)".
 */
public final class MarkdownReport {
  private MarkdownReport() {}

  /**
   * The tables for {@code rows}.
   *
   * @param variants column order; the first is the reference
   */
  public static String tables(List<Row> rows, List<String> variants) {
    Map<String, Map<String, Map<String, Row>>> byTable = new LinkedHashMap<>();
    for (Row r : rows) {
      byTable.computeIfAbsent(r.profile() + " / " + r.scenario(), k -> new LinkedHashMap<>())
          .computeIfAbsent(r.metric() + " (" + r.unit() + ")", k -> new LinkedHashMap<>()).put(r.variant(), r);
    }
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Map<String, Map<String, Row>>> t : byTable.entrySet()) {
      List<String> cols = new ArrayList<>();
      for (String v : variants) {
        for (Map<String, Row> m : t.getValue().values()) {
          if (m.containsKey(v) && !cols.contains(v)) {
            cols.add(v);
          }
        }
      }
      sb.append("\n#### ").append(t.getKey()).append("\n\n| metric | ideal |");
      for (String c : cols) {
        sb.append(' ').append(c).append(" |");
      }
      sb.append("\n| --- | --- |");
      sb.append(" --- |".repeat(cols.size()));
      sb.append('\n');
      for (Map.Entry<String, Map<String, Row>> m : t.getValue().entrySet()) {
        Row any = m.getValue().values().iterator().next();
        sb.append("| ").append(m.getKey()).append(" | ").append(num(any.ideal())).append(" |");
        for (String c : cols) {
          Row r = m.getValue().get(c);
          sb.append(' ').append(r == null ? "" : cell(r)).append(" |");
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  /** The headline figures, one row per profile and figure, a column per variant: the README's table. */
  public static String summary(List<Row> rows, List<String> variants) {
    String[][] picks = {{"unary", "seq p50", "unary p50 (ms)"}, {"unary", "seq p99", "unary p99 (ms)"},
        {"unary", "c16 p99", "unary x16 p99 (ms)"}, {"feed", "api max", "feed API worst (ms)"},
        {"bulk", "goodput_mbps", "bulk goodput (Mbit/s)"}, {"setup", "cold p50", "setup first call (ms)"}};
    Map<String, Map<String, Row>> byLine = new LinkedHashMap<>();
    List<String> profiles = new ArrayList<>();
    for (Row r : rows) {
      if (!profiles.contains(r.profile())) {
        profiles.add(r.profile());
      }
    }
    StringBuilder sb = new StringBuilder("| profile | figure | ideal |");
    for (String v : variants) {
      sb.append(' ').append(v).append(" |");
    }
    sb.append("\n| --- | --- | --- |").append(" --- |".repeat(variants.size())).append('\n');
    for (String p : profiles) {
      for (String[] pick : picks) {
        Map<String, Row> line = byLine.computeIfAbsent(p + pick[2], k -> new LinkedHashMap<>());
        for (Row r : rows) {
          if (r.profile().equals(p) && r.scenario().equals(pick[0]) && r.metric().equals(pick[1])) {
            line.put(r.variant(), r);
          }
        }
        if (line.isEmpty()) {
          continue;
        }
        sb.append("| ").append(p).append(" | ").append(pick[2]).append(" | ")
            .append(num(line.values().iterator().next().ideal())).append(" |");
        for (String v : variants) {
          Row r = line.get(v);
          sb.append(' ');
          if (r != null) {
            sb.append(num(r.ci().mean()));
            if (!Double.isNaN(r.ci().halfWidth())) {
              sb.append(" ± ").append(num(r.ci().halfWidth()));
            }
          }
          sb.append(" |");
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  /** One cell: mean ± half-interval, then the ratios where they exist. */
  static String cell(Row r) {
    StringBuilder sb = new StringBuilder(num(r.ci().mean()));
    if (!Double.isNaN(r.ci().halfWidth())) {
      sb.append(" ± ").append(num(r.ci().halfWidth()));
    }
    List<String> ratios = new ArrayList<>();
    if (!Double.isNaN(r.ratioToIdeal()) && !Double.isInfinite(r.ratioToIdeal())) {
      ratios.add(String.format(Locale.ROOT, "%.2f× ideal", r.ratioToIdeal()));
    }
    if (!Double.isNaN(r.ratioToReference()) && !Double.isInfinite(r.ratioToReference())) {
      ratios.add(String.format(Locale.ROOT, "%.2f× ref", r.ratioToReference()));
    }
    if (!ratios.isEmpty()) {
      sb.append(" (").append(String.join(", ", ratios)).append(')');
    }
    return sb.toString();
  }

  /** A number with sensible precision; a dash for NaN. */
  public static String num(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "–";
    }
    double a = Math.abs(v);
    if (a >= 100 || v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    return a >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
  }
}
