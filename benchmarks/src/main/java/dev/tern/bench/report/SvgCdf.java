package dev.tern.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Draws latency CDFs as one self-contained SVG: a grid of panels (a row per profile, a column per
 * latency series), one line per variant, logarithmic time axis. No scripts, no external files.
 */
public final class SvgCdf {
  private static final int W = 340;
  private static final int H = 230;
  private static final int ML = 48;
  private static final int MR = 10;
  private static final int MT = 24;
  private static final int MB = 36;
  private static final String[] COLOURS = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02",
      "#a6761d", "#666666"};

  private SvgCdf() {}

  /**
   * The SVG for histograms keyed {@code profile|series|variant} (values in microseconds).
   *
   * @param variants variant labels in legend order (fixes each one's colour)
   */
  public static String render(Map<String, Histogram> histograms, List<String> variants) {
    Map<String, Map<String, Map<String, Histogram>>> grid = new LinkedHashMap<>();
    List<String> series = new ArrayList<>();
    for (Map.Entry<String, Histogram> e : histograms.entrySet()) {
      String[] k = e.getKey().split("\\|", 3);
      grid.computeIfAbsent(k[0], x -> new LinkedHashMap<>()).computeIfAbsent(k[1], x -> new LinkedHashMap<>())
          .put(k[2], e.getValue());
      if (!series.contains(k[1])) {
        series.add(k[1]);
      }
    }
    int cols = Math.max(1, series.size());
    int width = cols * W;
    int height = Math.max(1, grid.size()) * H + 30;
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "font-family=\"sans-serif\" font-size=\"10\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
        width, height));
    for (int v = 0; v < variants.size(); v++) {
      int x = 10 + v * 120;
      sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"8\" width=\"14\" height=\"4\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"14\">%s</text>%n", x, colour(v), x + 18, esc(variants.get(v))));
    }
    int row = 0;
    for (Map.Entry<String, Map<String, Map<String, Histogram>>> p : grid.entrySet()) {
      for (int c = 0; c < series.size(); c++) {
        Map<String, Histogram> lines = p.getValue().get(series.get(c));
        if (lines != null) {
          panel(sb, c * W, 30 + row * H, p.getKey() + ": " + series.get(c), lines, variants);
        }
      }
      row++;
    }
    return sb.append("</svg>\n").toString();
  }

  private static void panel(StringBuilder sb, int ox, int oy, String title, Map<String, Histogram> lines,
      List<String> variants) {
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Histogram h : lines.values()) {
      lo = Math.min(lo, Math.max(1, h.getMinValue()) / 1000.0);
      hi = Math.max(hi, h.getMaxValue() / 1000.0);
    }
    double lx0 = Math.floor(Math.log10(Math.max(lo, 0.01)));
    double lx1 = Math.ceil(Math.log10(Math.max(hi, lo * 1.01)));
    if (lx1 <= lx0) {
      lx1 = lx0 + 1;
    }
    int pw = W - ML - MR;
    int ph = H - MT - MB;
    int x0 = ox + ML;
    int y0 = oy + MT;
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
        x0, oy + 14, esc(title)));
    sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
        + "stroke=\"#999\"/>%n", x0, y0, pw, ph));
    for (double d = lx0; d <= lx1 + 1e-9; d++) {
      for (int m : new int[] {1, 2, 5}) {
        double v = m * Math.pow(10, d);
        double lv = Math.log10(v);
        if (lv > lx1 + 1e-9) {
          break;
        }
        double x = x0 + (lv - lx0) / (lx1 - lx0) * pw;
        sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
            + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x, y0, x, y0 + ph, x, y0 + ph + 12,
            fmt(v)));
      }
    }
    for (int q = 0; q <= 4; q++) {
      double y = y0 + ph - q * ph / 4.0;
      sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>%n",
          x0 - 4, y + 3, q / 4.0));
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">latency (ms, log)</text>%n",
        x0 + pw / 2, y0 + ph + 26));
    for (Map.Entry<String, Histogram> e : lines.entrySet()) {
      int idx = variants.indexOf(e.getKey());
      StringBuilder pts = new StringBuilder();
      Histogram h = e.getValue();
      long total = h.getTotalCount();
      long seen = 0;
      for (HistogramIterationValue it : h.recordedValues()) {
        seen += it.getCountAtValueIteratedTo();
        double ms = Math.max(h.highestEquivalentValue(it.getValueIteratedTo()), 1) / 1000.0;
        double x = x0 + (Math.log10(Math.max(ms, Math.pow(10, lx0))) - lx0) / (lx1 - lx0) * pw;
        double y = y0 + ph - (double) seen / total * ph;
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", Math.min(x, x0 + pw), y));
      }
      sb.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
          + "points=\"%s\"/>%n", colour(idx < 0 ? 0 : idx), pts.toString().trim()));
    }
  }

  private static String colour(int i) {
    return COLOURS[i % COLOURS.length];
  }

  private static String fmt(double v) {
    return v >= 1 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2g", v);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
