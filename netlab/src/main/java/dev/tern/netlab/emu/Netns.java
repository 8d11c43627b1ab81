package dev.tern.netlab.emu;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Network-namespace chores done with iproute2 ({@code ip}) and {@code sysctl}, run as child
 * processes. Namespaces are named {@code tern-cli-<pid>} and {@code tern-srv-<pid>} after the
 * process that owns them, so that stale ones (their owner gone) can be found and removed.
 */
public final class Netns {
  /** Prefix of every namespace the emulator creates. */
  public static final String PREFIX = "tern-";
  private static final Pattern OWNED = Pattern.compile("tern-(?:cli|srv)-(\\d+)(?:-\\d+)?");
  private static final long COMMAND_TIMEOUT_S = 20;

  private Netns() {}

  /**
   * The command line that runs {@code command} inside namespace {@code ns}:
   * {@code ip netns exec <ns> <command...>}.
   */
  public static List<String> execCommand(String ns, List<String> command) {
    if (ns == null || ns.isEmpty()) {
      throw new IllegalArgumentException("ns must not be empty");
    }
    if (command == null || command.isEmpty()) {
      throw new IllegalArgumentException("command must not be empty");
    }
    List<String> argv = new ArrayList<>(command.size() + 4);
    argv.add("ip");
    argv.add("netns");
    argv.add("exec");
    argv.add(ns);
    argv.addAll(command);
    return argv;
  }

  /** A process builder for {@code command} inside namespace {@code ns}. */
  public static ProcessBuilder processBuilder(String ns, List<String> command) {
    return new ProcessBuilder(execCommand(ns, command));
  }

  /**
   * Fails with a clear message unless the process runs as root (namespaces and TUN devices need
   * CAP_NET_ADMIN).
   */
  public static void requireRoot() {
    String uid = "unknown";
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          uid = line.substring(4).trim().split("\\s+")[1]; // effective uid
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("netlab emulator: cannot read /proc/self/status to check for root", e);
    }
    if (!"0".equals(uid)) {
      throw new IllegalStateException("netlab emulator needs root (CAP_NET_ADMIN) to create network "
          + "namespaces and TUN devices; running with effective uid " + uid);
    }
  }

  /** Runs a command and returns its standard output; fails naming the command and its output. */
  static String run(String... argv) {
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
    try {
      Process p = pb.start();
      byte[] out;
      try (InputStream in = p.getInputStream()) {
        out = in.readAllBytes();
      }
      if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("timed out: " + String.join(" ", argv));
      }
      String text = new String(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IllegalStateException("command failed (exit " + p.exitValue() + "): "
            + String.join(" ", argv) + ": " + text.trim());
      }
      return text;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + String.join(" ", argv) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + String.join(" ", argv), e);
    }
  }

  /** Runs a command inside a namespace. */
  static String runIn(String ns, String... argv) {
    List<String> full = execCommand(ns, List.of(argv));
    return run(full.toArray(new String[0]));
  }

  /** Names of the existing network namespaces. */
  static List<String> list() {
    List<String> names = new ArrayList<>();
    for (String line : run("ip", "netns", "list").split("\n")) {
      String s = line.trim();
      if (!s.isEmpty()) {
        names.add(s.split("\\s+")[0]);
      }
    }
    return names;
  }

  /** Deletes a namespace, ignoring one that is already gone. */
  static void delete(String ns) {
    try {
      run("ip", "netns", "del", ns);
    } catch (IllegalStateException e) {
      if (list().contains(ns)) {
        throw e;
      }
    }
  }

  /** Whether the process owning a netlab namespace name still runs. */
  static boolean ownerAlive(String ns) {
    Matcher m = OWNED.matcher(ns);
    if (!m.matches()) {
      return true; // not ours
    }
    Path cmdline = Paths.get("/proc", m.group(1), "cmdline");
    try {
      return Files.exists(cmdline) && new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).contains("java");
    } catch (IOException e) {
      return false;
    }
  }

  /** Removes netlab namespaces whose owning process is gone; returns their names. */
  static List<String> removeStale() {
    List<String> removed = new ArrayList<>();
    for (String ns : list()) {
      if (OWNED.matcher(ns).matches() && !ownerAlive(ns)) {
        delete(ns);
        removed.add(ns);
      }
    }
    return removed;
  }

  /** Whether any netlab namespace other than those of {@code pid} exists with a live owner. */
  static boolean othersAlive(long pid) {
    for (String ns : list()) {
      Matcher m = OWNED.matcher(ns);
      if (m.matches() && Long.parseLong(m.group(1)) != pid && ownerAlive(ns)) {
        return true;
      }
    }
    return false;
  }
}
