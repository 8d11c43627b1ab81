package dev.tern.netlab.emu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Kernel TCP congestion control per namespace. A namespace may only select an algorithm listed
 * in the global {@code net.ipv4.tcp_allowed_congestion_control}, so one that is missing is added
 * for the run and the list restored when the emulator closes (unless another live emulator
 * still runs).
 */
final class CongestionControl {
  private static final Path AVAILABLE = Paths.get("/proc/sys/net/ipv4/tcp_available_congestion_control");
  private static final Path ALLOWED = Paths.get("/proc/sys/net/ipv4/tcp_allowed_congestion_control");

  private String originalAllowed;

  /**
   * Makes {@code algorithm} the TCP congestion control of each namespace in {@code namespaces}.
   *
   * @throws IllegalArgumentException when the kernel does not offer it
   */
  void apply(String algorithm, String... namespaces) {
    Set<String> available = words(read(AVAILABLE));
    if (!available.contains(algorithm)) {
      throw new IllegalArgumentException("tcp congestion control '" + algorithm
          + "' is not available in this kernel; available: " + available);
    }
    String allowedText = read(ALLOWED);
    Set<String> allowed = words(allowedText);
    if (!allowed.contains(algorithm)) {
      allowed.add(algorithm);
      write(ALLOWED, String.join(" ", allowed));
      originalAllowed = allowedText.trim();
    }
    for (String ns : namespaces) {
      Netns.runIn(ns, "sysctl", "-q", "-w", "net.ipv4.tcp_congestion_control=" + algorithm);
      String now = Netns.runIn(ns, "sysctl", "-n", "net.ipv4.tcp_congestion_control").trim();
      if (!now.equals(algorithm)) {
        throw new IllegalStateException("namespace " + ns + " kept tcp congestion control '" + now
            + "' instead of '" + algorithm + "'");
      }
    }
  }

  /** Restores the global allowed list if this instance changed it and no other emulator runs. */
  void restore(long pid) {
    if (originalAllowed != null && !Netns.othersAlive(pid)) {
      write(ALLOWED, originalAllowed);
      originalAllowed = null;
    }
  }

  private static Set<String> words(String s) {
    return new LinkedHashSet<>(Arrays.asList(s.trim().split("\\s+")));
  }

  private static String read(Path p) {
    try {
      return new String(Files.readAllBytes(p), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + p, e);
    }
  }

  private static void write(Path p, String value) {
    try {
      Files.write(p, value.getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write '" + value + "' to " + p, e);
    }
  }
}
