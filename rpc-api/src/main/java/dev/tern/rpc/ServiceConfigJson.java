package dev.tern.rpc;

import io.grpc.Status;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the values of a service config (grpc's JSON as a {@code Map<String, ?>}) with the typing
 * rules grpc-java uses: numbers are doubles (any {@link Number} is accepted and turned into one,
 * as grpc-java's builder does) or numeric strings, durations are proto JSON strings ({@code
 * "1.5s"}). Every error is an {@link IllegalArgumentException} that starts with the field's path
 * ({@code methodConfig[1].timeout}) and quotes the value.
 */
final class ServiceConfigJson {
  /** proto JSON Duration: seconds, up to nine fractional digits, an {@code s}. */
  private static final Pattern DURATION = Pattern.compile("(-)?([0-9]+)(?:\\.([0-9]{0,9}))?s");
  /** google.protobuf.Duration's range, in seconds. */
  private static final long MAX_DURATION_SECONDS = 315_576_000_000L;

  private ServiceConfigJson() {}

  /**
   * A deep, unmodifiable copy of {@code map} with every number a {@link Double} (as grpc's JSON
   * parser gives them, and as load-balancer providers expect); keys must be strings and values
   * JSON values (map, list, string, number, boolean, null). Key order is kept.
   */
  static Map<String, ?> normalise(Map<?, ?> map, String path) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getKey() instanceof String)) {
        throw new IllegalArgumentException(where(path) + "key " + describe(e.getKey()) + " is not a string");
      }
      String key = (String) e.getKey();
      out.put(key, normaliseValue(e.getValue(), path.isEmpty() ? key : path + "." + key));
    }
    return Collections.unmodifiableMap(out);
  }

  private static Object normaliseValue(Object value, String path) {
    if (value == null || value instanceof String || value instanceof Boolean) {
      return value;
    }
    if (value instanceof Number) {
      return ((Number) value).doubleValue();
    }
    if (value instanceof Map) {
      return normalise((Map<?, ?>) value, path);
    }
    if (value instanceof List) {
      List<?> list = (List<?>) value;
      List<Object> out = new ArrayList<>(list.size());
      for (int i = 0; i < list.size(); i++) {
        out.add(normaliseValue(list.get(i), path + "[" + i + "]"));
      }
      return Collections.unmodifiableList(out);
    }
    throw new IllegalArgumentException(path + ": a " + value.getClass().getName()
        + " is not a JSON value (use a Map, List, String, Number, Boolean or null)");
  }

  private static String where(String path) {
    return path.isEmpty() ? "service config: " : path + ": ";
  }

  /** The object at {@code key}; null if absent. */
  @SuppressWarnings("unchecked")
  static Map<String, ?> object(Map<String, ?> obj, String key, String path) {
    Object v = obj.get(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Map)) {
      throw new IllegalArgumentException(path + ": " + describe(v) + " is not an object");
    }
    return (Map<String, ?>) v;
  }

  /** The list of objects at {@code key}; null if absent. */
  @SuppressWarnings("unchecked")
  static List<Map<String, ?>> objects(Map<String, ?> obj, String key, String path) {
    Object v = obj.get(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof List)) {
      throw new IllegalArgumentException(path + ": " + describe(v) + " is not a list");
    }
    List<?> list = (List<?>) v;
    for (int i = 0; i < list.size(); i++) {
      if (!(list.get(i) instanceof Map)) {
        throw new IllegalArgumentException(path + "[" + i + "]: " + describe(list.get(i)) + " is not an object");
      }
    }
    return (List<Map<String, ?>>) list;
  }

  /** The string at {@code key}; null if absent. */
  static String string(Map<String, ?> obj, String key, String path) {
    Object v = obj.get(key);
    if (v != null && !(v instanceof String)) {
      throw new IllegalArgumentException(path + ": " + describe(v) + " is not a string");
    }
    return (String) v;
  }

  /** The boolean at {@code key}; null if absent. */
  static Boolean bool(Map<String, ?> obj, String key, String path) {
    Object v = obj.get(key);
    if (v != null && !(v instanceof Boolean)) {
      throw new IllegalArgumentException(path + ": " + describe(v) + " is not a boolean (true or false)");
    }
    return (Boolean) v;
  }

  /** The number at {@code key} (a number or a numeric string, as grpc-java); null if absent. */
  static Double number(Map<String, ?> obj, String key, String path) {
    Object v = obj.get(key);
    if (v == null) {
      return null;
    }
    if (v instanceof Double) {
      return (Double) v;
    }
    if (v instanceof String) {
      try {
        return Double.parseDouble(((String) v).trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(path + ": " + describe(v) + " is not a number", e);
      }
    }
    throw new IllegalArgumentException(path + ": " + describe(v) + " is not a number");
  }

  /** The integer at {@code key} (a whole number that fits an int, or such a string); null if absent. */
  static Integer integer(Map<String, ?> obj, String key, String path) {
    Double d;
    try {
      d = number(obj, key, path);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(path + ": " + describe(obj.get(key)) + " is not an integer", e);
    }
    if (d == null) {
      return null;
    }
    if (d != Math.rint(d) || d > Integer.MAX_VALUE || d < Integer.MIN_VALUE) {
      throw new IllegalArgumentException(path + ": " + describe(obj.get(key)) + " is not an integer"
          + (d == Math.rint(d) ? " (it exceeds " + Integer.MAX_VALUE + ")" : ""));
    }
    return d.intValue();
  }

  /** The duration at {@code key} in nanoseconds (saturated past Long.MAX_VALUE); null if absent. */
  static Long duration(Map<String, ?> obj, String key, String path) {
    Object v = obj.get(key);
    if (v == null) {
      return null;
    }
    Matcher m = v instanceof String ? DURATION.matcher((String) v) : null;
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException(path + ": " + describe(v)
          + " is not a duration (a proto JSON duration: seconds with up to 9 decimals and an 's', such as \"1.5s\")");
    }
    long seconds;
    try {
      seconds = Long.parseLong(m.group(2));
    } catch (NumberFormatException e) {
      seconds = Long.MAX_VALUE;
    }
    if (seconds > MAX_DURATION_SECONDS) {
      throw new IllegalArgumentException(path + ": " + describe(v) + " is out of a duration's range (at most "
          + MAX_DURATION_SECONDS + "s)");
    }
    String frac = m.group(3) == null ? "" : m.group(3);
    long nanos = frac.isEmpty() ? 0 : Long.parseLong((frac + "000000000").substring(0, 9));
    long total = seconds > Long.MAX_VALUE / 1_000_000_000L - 1 ? Long.MAX_VALUE : seconds * 1_000_000_000L + nanos;
    return m.group(1) != null ? -total : total;
  }

  /**
   * The status codes at {@code key}: names ({@code "UNAVAILABLE"}) or numbers ({@code 14}), as
   * grpc-java accepts them; null if absent.
   */
  static Set<Status.Code> statusCodes(Map<String, ?> obj, String key, String path) {
    Object v = obj.get(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof List)) {
      throw new IllegalArgumentException(path + ": " + describe(v) + " is not a list of status codes");
    }
    List<?> list = (List<?>) v;
    EnumSet<Status.Code> codes = EnumSet.noneOf(Status.Code.class);
    for (int i = 0; i < list.size(); i++) {
      codes.add(statusCode(list.get(i), path + "[" + i + "]"));
    }
    if (codes.contains(Status.Code.OK)) {
      throw new IllegalArgumentException(path + ": must not contain OK (OK is not a failure)");
    }
    return Collections.unmodifiableSet(codes);
  }

  private static Status.Code statusCode(Object v, String path) {
    if (v instanceof Double) {
      double d = (Double) v;
      int value = (int) d;
      if (value == d && value >= 0 && value < Status.Code.values().length) {
        Status.Code code = Status.fromCodeValue(value).getCode();
        if (code.value() == value) {
          return code;
        }
      }
    } else if (v instanceof String) {
      for (Status.Code code : Status.Code.values()) {
        if (code.name().equals(v)) {
          return code;
        }
      }
    }
    throw new IllegalArgumentException(path + ": " + describe(v)
        + " is not a status code (a name such as \"UNAVAILABLE\", or its number, 0 to 16)");
  }

  /** A value as the messages quote it: whole numbers without {@code .0}. */
  static String describe(Object v) {
    if (v instanceof Double) {
      double d = (Double) v;
      if (!Double.isInfinite(d) && !Double.isNaN(d)) {
        return "'" + BigDecimal.valueOf(d).stripTrailingZeros().toPlainString() + "'";
      }
    }
    return v == null ? "null" : "'" + v + "'";
  }
}
