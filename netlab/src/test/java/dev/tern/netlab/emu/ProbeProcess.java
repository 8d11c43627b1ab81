package dev.tern.netlab.emu;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link NetProbe} run in one of the emulator's namespaces, with its output lines collected. */
final class ProbeProcess implements AutoCloseable {
  private final Process process;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> all = new ArrayList<>();

  private ProbeProcess(ProcessBuilder pb) throws IOException {
    process = pb.redirectErrorStream(true).start();
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "probe-output");
    t.setDaemon(true);
    t.start();
  }

  static ProbeProcess inClient(NetlabEmulator emu, String... args) throws IOException {
    return new ProbeProcess(emu.clientProcess(command(args)));
  }

  static ProbeProcess inServer(NetlabEmulator emu, String... args) throws IOException {
    return new ProbeProcess(emu.serverProcess(command(args)));
  }

  /**
   * The probe's JVM, at nice -10 so that on a busy machine its own scheduling delays (which are
   * measurement error, not link behaviour) stay small.
   */
  private static List<String> command(String... args) {
    List<String> cmd = new ArrayList<>(List.of("nice", "-n", "-10"));
    cmd.addAll(NetlabEmulator.javaCommand(System.getProperty("java.class.path"),
        NetProbe.class.getName(), args));
    return cmd;
  }

  /** Waits for {@code READY <port>} and returns the port. */
  int awaitReady(long timeoutS) throws InterruptedException {
    return (int) Long.parseLong(awaitLine("READY ", timeoutS).substring(6).trim());
  }

  /** Waits for the {@code RESULT} line and parses its {@code key=value} pairs. */
  Map<String, Double> awaitResult(long timeoutS) throws InterruptedException {
    Map<String, Double> m = new HashMap<>();
    for (String kv : awaitLine("RESULT ", timeoutS).substring(7).trim().split("\\s+")) {
      String[] p = kv.split("=", 2);
      m.put(p[0], Double.parseDouble(p[1]));
    }
    return m;
  }

  private String awaitLine(String prefix, long timeoutS) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
      if (line == null) {
        throw new AssertionError("no '" + prefix.trim() + "' line within " + timeoutS + " s; output: " + all);
      }
      all.add(line);
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
