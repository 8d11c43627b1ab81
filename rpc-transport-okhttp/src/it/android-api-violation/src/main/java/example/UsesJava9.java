package example;

import java.nio.ByteBuffer;
import java.util.List;

/** Calls two APIs that Android 8.0 lacks; the Android API check must reject both. */
public final class UsesJava9 {
  private UsesJava9() {}

  /** List.of: Java 9, Android API level 30. */
  public static List<String> names() {
    return List.of("udp", "okhttp");
  }

  /** ByteBuffer.flip() returning ByteBuffer: Java 9 (Android 8.0 has only Buffer.flip()). */
  public static ByteBuffer flipped(ByteBuffer buffer) {
    return buffer.flip();
  }

  /** A record: D8 desugars it, so the check lets it through (the build's ignore). */
  public record Pair(String a, String b) {}
}
