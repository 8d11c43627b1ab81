package dev.tern.bench.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Runs one server process and one client process for a variant on a lab, speaking their line protocols. */
final class ProcessPair {
  private final Lab lab;
  private final String classpath;
  private final Path logDir;

  ProcessPair(Lab lab, String classpath, Path logDir) {
    this.lab = lab;
    this.classpath = classpath;
    this.logDir = logDir;
  }

  /**
   * Starts the server, runs the client to the end and stops the server.
   *
   * @return the client's raw result file
   */
  Path run(String tag, String stack, Path tlsDir, List<String> scenarios, int reps, ClientConfig config,
      long timeoutSeconds, Consumer<String> progress) throws Exception {
    String tls = tlsDir == null ? "" : tlsDir.toAbsolutePath().toString();
    List<String> server = java(ServerMain.class, "--stack", stack, "--bind", lab.serverBindHost(), "--tls-dir", tls);
    Process sp = new ProcessBuilder(lab.serverCommand(server))
        .redirectError(logDir.resolve(tag + "-server.err").toFile()).start();
    try {
      BufferedReader sout = new BufferedReader(new InputStreamReader(sp.getInputStream(), StandardCharsets.UTF_8));
      String first = sout.readLine();
      if (first == null || !first.startsWith("LISTENING ")) {
        throw new IllegalStateException("server for " + tag + " did not start: " + first + " (see "
            + logDir.resolve(tag + "-server.err") + ")");
      }
      int port = Integer.parseInt(first.substring(10).trim());
      ServerControl control = new ServerControl(sout, sp);
      Path out = logDir.resolve(tag + "-client.txt");
      List<String> client = java(ClientMain.class, "--stack", stack, "--host", lab.serverHostForClient(),
          "--port", Integer.toString(port), "--scenarios", String.join(",", scenarios), "--reps",
          Integer.toString(reps), "--out", out.toString(), "--tls-dir", tls);
      client.addAll(List.of(config.toArgs()));
      Process cp = new ProcessBuilder(lab.clientCommand(client))
          .redirectError(logDir.resolve(tag + "-client.err").toFile()).start();
      Thread talker = new Thread(() -> talk(cp, control, progress), "client-" + tag);
      talker.setDaemon(true);
      talker.start();
      if (!cp.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        cp.destroyForcibly();
        throw new IllegalStateException("client for " + tag + " ran past " + timeoutSeconds + " s and was stopped");
      }
      talker.join(5000);
      if (cp.exitValue() != 0) {
        throw new IllegalStateException("client for " + tag + " exited with " + cp.exitValue() + " (see "
            + logDir.resolve(tag + "-client.err") + ")");
      }
      return out;
    } finally {
      try {
        serverInput(sp).write("quit\n");
        serverInput(sp).close();
      } catch (IOException ignored) {
        // The server already exited; nothing to stop.
      }
      if (!sp.waitFor(10, TimeUnit.SECONDS)) {
        sp.destroyForcibly();
      }
    }
  }

  private void talk(Process cp, ServerControl control, Consumer<String> progress) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(cp.getInputStream(), StandardCharsets.UTF_8));
        Writer w = new OutputStreamWriter(cp.getOutputStream(), StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("PROGRESS ")) {
          progress.accept(line.substring(9));
        } else if (line.equals("SYNC open")) {
          lab.openWindow();
          w.write("ok\n");
          w.flush();
        } else if (line.equals("SYNC stats")) {
          String answer;
          try {
            answer = control.stats();
          } catch (IOException e) {
            answer = "ERROR " + e.getMessage(); // the client's parse fails the scenario with this text
          }
          w.write(answer + "\n");
          w.flush();
        } else if (line.equals("SYNC move")) {
          String answer = "ok";
          try {
            lab.moveClientAddress();
          } catch (RuntimeException e) {
            answer = "ERROR " + e.getMessage();
          }
          w.write(answer + "\n");
          w.flush();
        } else if (line.equals("SYNC close")) {
          lab.closeWindow();
          w.write("ok\n");
          w.flush();
        }
      }
    } catch (IOException e) {
      progress.accept("lost the client's output: " + e);
    }
  }

  private final java.util.Map<Process, Writer> inputs = new java.util.concurrent.ConcurrentHashMap<>();

  private Writer serverInput(Process sp) {
    return inputs.computeIfAbsent(sp, p -> new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8));
  }

  /** Asks the server process for a {@link ServerStats} line over its standard input and output. */
  private final class ServerControl {
    private final BufferedReader out;
    private final Process sp;

    ServerControl(BufferedReader out, Process sp) {
      this.out = out;
      this.sp = sp;
    }

    synchronized String stats() throws IOException {
      Writer w = serverInput(sp);
      w.write("stats\n");
      w.flush();
      String line = out.readLine();
      if (line == null || !line.startsWith(ServerStats.PREFIX)) {
        throw new IOException("server answered stats with '" + line + "'");
      }
      return line;
    }
  }

  private List<String> java(Class<?> main, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    return cmd;
  }
}
