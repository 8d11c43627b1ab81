package dev.tern.bench.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A small JSON writer for the benchmark's output (strings, numbers, booleans, lists, maps). */
public final class Json {
  private Json() {}

  /** {@code value} as JSON text; NaN and infinities become {@code null}. */
  public static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, 0);
    return sb.append('\n').toString();
  }

  private static void write(StringBuilder sb, Object v, int indent) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String s) {
      quote(sb, s);
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      sb.append(Double.isFinite(d)
          ? new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros().toPlainString() : "null");
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        sb.append(first ? "\n" : ",\n").append("  ".repeat(indent + 1));
        quote(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        write(sb, e.getValue(), indent + 1);
        first = false;
      }
      sb.append(first ? "}" : "\n" + "  ".repeat(indent) + "}");
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        sb.append(i == 0 ? "" : ", ");
        write(sb, l.get(i), indent + 1);
      }
      sb.append(']');
    } else {
      throw new IllegalArgumentException("cannot write " + v.getClass().getName() + " as JSON");
    }
  }

  private static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
