package dev.tern.bench.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
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
   * Starts the server, runs the client to the end and stops the server. With {@code
   * freshClientPerRep} every repetition gets a client process of its own (for a stack that may
   * remember, within a process, what it learnt about the server).
   *
   * @param timings receives (scenario, wall milliseconds) for every scenario repetition the client ran
   * @return the client's raw result file
   */
  Path run(String tag, String stack, Path tlsDir, List<String> scenarios, int reps, ClientConfig config,
      long timeoutSeconds, Consumer<String> progress, BiConsumer<String, Long> timings, boolean freshClientPerRep)
      throws Exception {
    String tls = tlsDir == null ? "" : tlsDir.toAbsolutePath().toString();
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    List<String> server = java(ServerMain.class, "--stack", stack, "--bind", lab.serverBindHost(), "--tls-dir", tls);
    Process sp = new ProcessBuilder(lab.serverCommand(server))
        .redirectError(logDir.resolve(tag + "-server.err").toFile()).start();
    Path out = logDir.resolve(tag + "-client.txt");
    CompletableFuture<Integer> port = new CompletableFuture<>();
    CompletableFuture<ServerControl> control = new CompletableFuture<>();
    // The client JVM starts and warms up on its own loopback while the server JVM starts: the
    // client asks for the port (SYNC port) only once it is ready to measure.
    Client first = startClient(tag, stack, tls, scenarios, 0, freshClientPerRep ? 1 : reps, config,
        freshClientPerRep ? logDir.resolve(tag + "-client-rep0.txt") : out, port, control, progress, timings);
    try {
      BufferedReader sout = new BufferedReader(new InputStreamReader(sp.getInputStream(), StandardCharsets.UTF_8));
      String line = sout.readLine();
      if (line == null || !line.startsWith("LISTENING ")) {
        first.process.destroyForcibly();
        throw new IllegalStateException("server for " + tag + " did not start: " + line + " (see "
            + logDir.resolve(tag + "-server.err") + ")");
      }
      control.complete(new ServerControl(sout, sp));
      port.complete(Integer.parseInt(line.substring(10).trim()));
      progress.accept(String.format(Locale.ROOT, "server listening after %.1f s", (System.nanoTime() - t0) / 1e9));
      first.await(deadline);
      if (!freshClientPerRep) {
        return out;
      }
      StringBuilder all = new StringBuilder(Files.readString(logDir.resolve(tag + "-client-rep0.txt")));
      for (int rep = 1; rep < reps; rep++) {
        Path part = logDir.resolve(tag + "-client-rep" + rep + ".txt");
        startClient(tag, stack, tls, scenarios, rep, 1, config, part, port, control, progress, timings)
            .await(deadline);
        all.append(Files.readString(part, StandardCharsets.UTF_8));
      }
      Files.writeString(out, all, StandardCharsets.UTF_8);
      return out;
    } finally {
      try {
        serverInput(sp).write("quit\n");
        serverInput(sp).close();
      } catch (IOException ignored) {
        // The server already exited; nothing to stop.
      }
      long quit = System.nanoTime();
      if (!sp.waitFor(10, TimeUnit.SECONDS)) {
        sp.destroyForcibly();
      }
      progress.accept(String.format(Locale.ROOT, "server stopped in %.1f s", (System.nanoTime() - quit) / 1e9));
    }
  }

  private Client startClient(String tag, String stack, String tls, List<String> scenarios, int firstRep, int reps,
      ClientConfig config, Path out, CompletableFuture<Integer> port, CompletableFuture<ServerControl> control,
      Consumer<String> progress, BiConsumer<String, Long> timings) throws IOException {
    List<String> client = java(ClientMain.class, "--stack", stack, "--host", lab.serverHostForClient(),
        "--scenarios", String.join(",", scenarios), "--reps", Integer.toString(reps),
        "--first-rep", Integer.toString(firstRep), "--out", out.toString(), "--tls-dir", tls);
    client.addAll(List.of(config.toArgs()));
    Process cp = new ProcessBuilder(lab.clientCommand(client))
        .redirectError(ProcessBuilder.Redirect.appendTo(logDir.resolve(tag + "-client.err").toFile())).start();
    Thread talker = new Thread(() -> talk(cp, port, control, progress, timings), "client-" + tag);
    talker.setDaemon(true);
    talker.start();
    return new Client(tag, cp, talker, System.nanoTime(), progress);
  }

  /** A started client process and the thread answering it. */
  private final class Client {
    final String tag;
    final Process process;
    final Thread talker;
    final long startNs;
    final Consumer<String> progress;

    Client(String tag, Process process, Thread talker, long startNs, Consumer<String> progress) {
      this.tag = tag;
      this.process = process;
      this.talker = talker;
      this.startNs = startNs;
      this.progress = progress;
    }

    /** Waits for the client to end by {@code deadlineNs}; fails if it ran over or exited non-zero. */
    void await(long deadlineNs) throws InterruptedException {
      long left = Math.max(1, deadlineNs - System.nanoTime());
      if (!process.waitFor(left, TimeUnit.NANOSECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("client for " + tag + " ran past its time limit and was stopped");
      }
      talker.join(5000);
      progress.accept(String.format(Locale.ROOT, "client process ran %.1f s", (System.nanoTime() - startNs) / 1e9));
      if (process.exitValue() != 0) {
        throw new IllegalStateException("client for " + tag + " exited with " + process.exitValue() + " (see "
            + logDir.resolve(tag + "-client.err") + ")");
      }
    }
  }

  private void talk(Process cp, CompletableFuture<Integer> port, CompletableFuture<ServerControl> serverControl,
      Consumer<String> progress, BiConsumer<String, Long> timings) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(cp.getInputStream(), StandardCharsets.UTF_8));
        Writer w = new OutputStreamWriter(cp.getOutputStream(), StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.equals("SYNC port")) {
          String answer;
          try {
            answer = Integer.toString(port.get(10, TimeUnit.MINUTES));
          } catch (Exception e) {
            answer = "ERROR the server did not start: " + e;
          }
          w.write(answer + "\n");
          w.flush();
        } else if (line.startsWith("PROGRESS ")) {
          progress.accept(line.substring(9));
        } else if (line.startsWith("TIMING ")) {
          String[] f = line.split(" ");
          timings.accept(f[2], Long.parseLong(f[3]));
        } else if (line.equals("SYNC block-udp") || line.equals("SYNC unblock-udp")) {
          String answer = "ok";
          try {
            lab.blockUdp(line.equals("SYNC block-udp"));
          } catch (RuntimeException e) {
            answer = "ERROR " + e.getMessage();
          }
          w.write(answer + "\n");
          w.flush();
        } else if (line.startsWith("SYNC open-cancel ")) {
          lab.openCancelWindow(Integer.parseInt(line.substring(17).trim()));
          w.write("ok\n");
          w.flush();
        } else if (line.startsWith("SYNC close-cancel ")) {
          String[] f = line.substring(18).trim().split(" ");
          lab.closeCancelWindow(Integer.parseInt(f[0]), Integer.parseInt(f[1]));
          w.write("ok\n");
          w.flush();
        } else if (line.startsWith("SYNC open-download ")) {
          lab.openDownloadWindow(Integer.parseInt(line.substring(19).trim()));
          w.write("ok\n");
          w.flush();
        } else if (line.startsWith("SYNC close-download ")) {
          lab.closeDownloadWindow(Integer.parseInt(line.substring(20).trim()));
          w.write("ok\n");
          w.flush();
        } else if (line.equals("SYNC open")) {
          lab.openWindow();
          w.write("ok\n");
          w.flush();
        } else if (line.equals("SYNC stats")) {
          String answer;
          try {
            answer = serverControl.getNow(null).stats();
          } catch (IOException | RuntimeException e) {
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
