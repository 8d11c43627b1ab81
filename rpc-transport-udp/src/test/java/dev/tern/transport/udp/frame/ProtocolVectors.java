package dev.tern.transport.udp.frame;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the {@code vector} lines of docs/protocol.md, so the tests check the document itself. */
public final class ProtocolVectors {
  private static final Map<String, List<String>> LINES = load();

  private ProtocolVectors() {}

  private static Map<String, List<String>> load() {
    Path doc = Path.of("..", "docs", "protocol.md");
    Map<String, List<String>> out = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(doc)) {
        if (line.startsWith("vector ")) {
          String[] parts = line.trim().split("\\s+", 3);
          out.computeIfAbsent(parts[1], k -> new ArrayList<>()).add(parts.length > 2 ? parts[2] : "");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + doc.toAbsolutePath(), e);
    }
    return out;
  }

  /** Every line's text after the vector's name. */
  public static List<String> lines(String name) {
    List<String> l = LINES.get(name);
    if (l == null) {
      throw new AssertionError("docs/protocol.md has no vector " + name);
    }
    return l;
  }

  /** The names of every vector in the document. */
  public static java.util.Set<String> names() {
    return LINES.keySet();
  }

  /** The leading hex tokens of the first line of the vector, joined, as bytes. */
  public static byte[] hex(String name) {
    return leadingHex(lines(name).get(0));
  }

  /** The leading hex tokens of {@code text} as bytes. */
  public static byte[] leadingHex(String text) {
    StringBuilder sb = new StringBuilder();
    for (String token : text.trim().split("\\s+")) {
      if (!token.matches("[0-9a-f]+") || token.length() % 2 != 0) {
        break;
      }
      sb.append(token);
    }
    return HexFormat.of().parseHex(sb.toString());
  }
}
