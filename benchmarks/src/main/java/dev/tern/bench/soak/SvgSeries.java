package dev.tern.bench.soak;

import java.util.List;
import java.util.Locale;

/**
 * Draws a soak run as one self-contained SVG: a panel per figure, stacked, sharing the time axis,
 * one line per series, the fault windows shaded in every panel with a colour per fault. No
 * scripts, no external files.
 */
final class SvgSeries {
  private static final int W = 900;
  private static final int H = 150;
  private static final int ML = 56;
  private static final int MR = 16;
  private static final int MT = 22;
  private static final int MB = 22;
  private static final int LEGEND = 40;
  private static final String[] LINE_COLOURS = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"};
  private static final String[] FAULT_COLOURS = {"#fdd0a2", "#c6dbef", "#d9d9d9", "#dadaeb", "#c7e9c0"};

  /**
   * One line.
   *
   * @param name the legend's label
   * @param values a value per sample (NaN: no point)
   */
  record Line(String name, double[] values) {}

  /**
   * One panel.
   *
   * @param title the panel's title, with its unit
   * @param lines its lines
   */
  record Panel(String title, List<Line> lines) {}

  /**
   * A fault window to shade.
   *
   * @param fault which fault (its colour)
   * @param fromSeconds start
   * @param toSeconds end
   */
  record Shade(Fault fault, double fromSeconds, double toSeconds) {}

  private SvgSeries() {}

  /**
   * The SVG.
   *
   * @param title the plot's title
   * @param seconds each sample's time
   * @param panels the panels, top to bottom
   * @param shades the fault windows
   * @param runSeconds the time axis's end
   */
  static String render(String title, double[] seconds, List<Panel> panels, List<Shade> shades, double runSeconds) {
    int height = LEGEND + panels.size() * H + 24;
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "font-family=\"sans-serif\" font-size=\"10\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
        W, height));
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"14\" font-weight=\"bold\">%s</text>%n", ML, esc(title)));
    int x = ML;
    for (Fault f : Fault.values()) {
      sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"22\" width=\"14\" height=\"10\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"31\">%s</text>%n", x, FAULT_COLOURS[f.ordinal()], x + 18, esc(f.label())));
      x += 30 + 7 * f.label().length();
    }
    boolean minutes = runSeconds >= 180;
    for (int i = 0; i < panels.size(); i++) {
      panel(sb, LEGEND + i * H, panels.get(i), seconds, shades, runSeconds, minutes, i == panels.size() - 1);
    }
    return sb.append("</svg>\n").toString();
  }

  private static void panel(StringBuilder sb, int oy, Panel p, double[] seconds, List<Shade> shades,
      double runSeconds, boolean minutes, boolean bottom) {
    int pw = W - ML - MR;
    int ph = H - MT - MB;
    int x0 = ML;
    int y0 = oy + MT;
    double lo = Double.MAX_VALUE;
    double hi = -Double.MAX_VALUE;
    for (Line l : p.lines()) {
      for (double v : l.values()) {
        if (Double.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    if (lo > hi) {
      lo = 0;
      hi = 1;
    }
    // From zero where the values sit well above it, so that growth is seen at its true scale.
    lo = lo >= 0 && lo < hi * 0.5 ? 0 : lo - (hi - lo) * 0.1;
    hi = hi + Math.max((hi - lo) * 0.1, 1e-9);
    if (hi - lo < 1e-9) {
      hi = lo + 1;
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
        x0, oy + 14, esc(p.title())));
    for (Shade s : shades) {
      double a = x0 + s.fromSeconds() / runSeconds * pw;
      double b = x0 + Math.min(s.toSeconds(), runSeconds) / runSeconds * pw;
      sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
          + "<title>%s</title></rect>%n", a, y0, Math.max(b - a, 0.5), ph, FAULT_COLOURS[s.fault().ordinal()],
          esc(s.fault().label())));
    }
    sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
        + "stroke=\"#999\"/>%n", x0, y0, pw, ph));
    for (int q = 0; q <= 4; q++) {
      double v = lo + (hi - lo) * q / 4;
      double y = y0 + ph - q * ph / 4.0;
      sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
          + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", x0, y, x0 + pw, y, x0 - 4, y + 3, fmt(v)));
    }
    double unit = minutes ? 60 : 1;
    double step = niceStep(runSeconds / unit / 10);
    for (double t = 0; t <= runSeconds / unit + 1e-9; t += step) {
      double x = x0 + t * unit / runSeconds * pw;
      sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>",
          x, y0 + ph, x, y0 + ph + 3));
      if (bottom) {
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x,
            y0 + ph + 14, fmt(t)));
      }
      sb.append('\n');
    }
    if (bottom) {
      sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (%s)</text>%n",
          x0 + pw / 2, y0 + ph + 28, minutes ? "min" : "s"));
    }
    for (int i = 0; i < p.lines().size(); i++) {
      Line l = p.lines().get(i);
      StringBuilder pts = new StringBuilder();
      for (int k = 0; k < l.values().length && k < seconds.length; k++) {
        double v = l.values()[k];
        if (!Double.isFinite(v)) {
          continue;
        }
        double x = x0 + seconds[k] / runSeconds * pw;
        double y = y0 + ph - (v - lo) / (hi - lo) * ph;
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", Math.min(x, x0 + pw), y));
      }
      String colour = LINE_COLOURS[i % LINE_COLOURS.length];
      sb.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
          + "points=\"%s\"><title>%s</title></polyline>%n", colour, pts.toString().trim(), esc(l.name())));
      if (p.lines().size() > 1) {
        int lx = x0 + pw - 90 * (p.lines().size() - i);
        sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"3\" fill=\"%s\"/>"
            + "<text x=\"%d\" y=\"%d\">%s</text>%n", lx, oy + 10, colour, lx + 18, oy + 14, esc(l.name())));
      }
    }
  }

  /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
  static double niceStep(double raw) {
    double p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
    for (int m : new int[] {1, 2, 5, 10}) {
      if (m * p >= raw) {
        return m * p;
      }
    }
    return 10 * p;
  }

  /** Up to the usual few digits. */
  private static String fmt(double v) {
    double a = Math.abs(v);
    if (a >= 100 || v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    return a >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
