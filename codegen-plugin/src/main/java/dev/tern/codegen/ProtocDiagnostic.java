package dev.tern.codegen;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One message from protoc's standard error, {@code file:line:column: message} (line and column
 * may be absent).
 *
 * @param file the file as protoc names it (relative to an include path), or null
 * @param line 1-based line, or 0 when protoc gives none
 * @param column 1-based column, or 0 when protoc gives none
 * @param message protoc's text
 */
record ProtocDiagnostic(String file, int line, int column, String message) {
  private static final Pattern LOCATED =
      Pattern.compile("^(.+?\\.proto):(\\d+)(?::(\\d+))?: ?(.*)$");
  private static final Pattern FILE_ONLY = Pattern.compile("^(.+?\\.proto): ?(.*)$");

  /** Parses every non-blank line of protoc's standard error. */
  static List<ProtocDiagnostic> parse(String stderr) {
    List<ProtocDiagnostic> out = new ArrayList<>();
    for (String line : stderr.split("\\R")) {
      if (line.isBlank()) {
        continue;
      }
      Matcher m = LOCATED.matcher(line);
      if (m.matches()) {
        out.add(new ProtocDiagnostic(m.group(1), Integer.parseInt(m.group(2)),
            m.group(3) == null ? 0 : Integer.parseInt(m.group(3)), m.group(4)));
        continue;
      }
      Matcher f = FILE_ONLY.matcher(line);
      if (f.matches()) {
        out.add(new ProtocDiagnostic(f.group(1), 0, 0, f.group(2)));
      } else {
        out.add(new ProtocDiagnostic(null, 0, 0, line));
      }
    }
    return out;
  }

  /** Whether protoc only warned. */
  boolean isWarning() {
    return message.startsWith("warning:");
  }

  /** {@code path:line:column: message} with the path as given, for a build log. */
  String format(String path) {
    if (path == null) {
      return message;
    }
    StringBuilder b = new StringBuilder(path);
    if (line > 0) {
      b.append(':').append(line);
      if (column > 0) {
        b.append(':').append(column);
      }
    }
    return b.append(": ").append(message).toString();
  }
}
