package dev.tern.rpc;

import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/** Checks transport names a builder was given against the transports on the class path. */
final class TransportNames {
  /** Tern's transports, by name, and the artifact that brings each. */
  private static final java.util.Map<String, String> TERN_ARTIFACTS = ternArtifacts();

  private TransportNames() {}

  private static java.util.Map<String, String> ternArtifacts() {
    java.util.Map<String, String> artifacts = new java.util.HashMap<>();
    artifacts.put("tcp", "dev.tern:rpc-transport-tcp");
    artifacts.put("okhttp", "dev.tern:rpc-transport-okhttp");
    artifacts.put("quic", "dev.tern:rpc-transport-quic");
    artifacts.put("udp", "dev.tern:rpc-transport-udp");
    return java.util.Collections.unmodifiableMap(artifacts);
  }

  /**
   * Throws unless {@code name} is one of {@code known}.
   *
   * @param parameter what the caller passed, for the message ({@code "transports(...)"})
   * @throws IllegalArgumentException naming the name, the known ones and, for a near miss, the
   *     likely one
   */
  static void check(String name, Set<String> known, String parameter) {
    if (known.contains(name)) {
      return;
    }
    StringBuilder m = new StringBuilder("unknown transport '").append(name).append("' in ").append(parameter)
        .append(": transports on the class path are ").append(new TreeSet<>(known));
    String lower = name.toLowerCase(Locale.ROOT).trim();
    String suggestion = null;
    if (known.contains(lower)) {
      m.append("; transport names are lower case: did you mean '").append(lower).append("'?");
    } else if ((suggestion = closest(lower, known)) != null) {
      m.append("; did you mean '").append(suggestion).append("'?");
    }
    if (TERN_ARTIFACTS.containsKey(lower) && !known.contains(lower)) {
      m.append("; add the ").append(TERN_ARTIFACTS.get(lower)).append(" dependency to use '").append(lower).append('\'');
    }
    throw new IllegalArgumentException(m.toString());
  }

  /** Checks every name in {@code names}. */
  static void checkAll(Collection<String> names, Set<String> known, String parameter) {
    for (String n : names) {
      check(n, known, parameter);
    }
  }

  /** The known name one edit (or one swap of neighbours) from {@code name}, or null. */
  private static String closest(String name, Set<String> known) {
    for (String k : known) {
      if (distance(name, k) <= 1 || (name.length() >= 3 && distance(name, k) <= 2 && sameLetters(name, k))) {
        return k;
      }
    }
    return null;
  }

  private static boolean sameLetters(String a, String b) {
    char[] x = a.toCharArray();
    char[] y = b.toCharArray();
    java.util.Arrays.sort(x);
    java.util.Arrays.sort(y);
    return java.util.Arrays.equals(x, y);
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
