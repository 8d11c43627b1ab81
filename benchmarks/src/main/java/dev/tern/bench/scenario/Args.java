package dev.tern.bench.scenario;

import java.util.HashMap;
import java.util.Map;

/** {@code --key value} arguments of the benchmark's child processes (the user-facing command uses picocli). */
final class Args {
  private final Map<String, String> values = new HashMap<>();

  Args(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length || args[i + 1] == null) {
        throw new IllegalArgumentException("expected --key value, got '" + args[i] + "' at " + i);
      }
      values.put(args[i].substring(2), args[++i]);
    }
  }

  String get(String key) {
    String v = values.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument --" + key);
    }
    return v;
  }

  String get(String key, String dflt) {
    return values.getOrDefault(key, dflt);
  }

  int getInt(String key, int dflt) {
    String v = values.get(key);
    try {
      return v == null ? dflt : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + key + " must be an integer, was '" + v + "'", e);
    }
  }

  long getLong(String key, long dflt) {
    String v = values.get(key);
    try {
      return v == null ? dflt : Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + key + " must be an integer, was '" + v + "'", e);
    }
  }

  double getDouble(String key, double dflt) {
    String v = values.get(key);
    try {
      return v == null ? dflt : Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + key + " must be a number, was '" + v + "'", e);
    }
  }
}
