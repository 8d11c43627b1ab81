package dev.tern.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's own interop server and client ({@code io.grpc:grpc-interop-testing}), run as separate
 * processes on their own class path: that jar carries its own generated {@code grpc.testing}
 * classes, which must never meet Tern's.
 */
final class StockPeers {
  private static final String SERVER_MAIN = "io.grpc.testing.integration.TestServiceServer";
  private static final String CLIENT_MAIN = "io.grpc.testing.integration.TestServiceClient";
  private static final long START_TIMEOUT_SECONDS = 60;
  private static final long CLIENT_TIMEOUT_SECONDS = 60;

  private StockPeers() {}

  private static String classPath() throws IOException {
    String file = System.getProperty("stock.peers.classpath");
    if (file == null) {
      throw new IllegalStateException("system property stock.peers.classpath is not set (run through Maven)");
    }
    return Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
  }

  private static List<String> java(String mainClass) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Short-lived JVMs: quick start matters more than peak speed.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-cp");
    command.add(classPath());
    command.add(mainClass);
    return command;
  }

  /** A free loopback port (the stock server cannot report the port it bound for 0). */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    }
  }

  /** A running stock interop server on 127.0.0.1. */
  static final class Server implements AutoCloseable {
    final int port;
    private final Process process;
    private final StringBuffer output = new StringBuffer();

    private Server(int port, Process process) {
      this.port = port;
      this.process = process;
    }

    /** Starts the stock server in plaintext and waits until it says it listens. */
    static Server start() throws Exception {
      return start(false);
    }

    /**
     * Starts the stock server and waits until it says it listens; with {@code tls} it presents
     * grpc's test certificate ({@link GrpcTestCertificates}).
     */
    static Server start(boolean tls) throws Exception {
      int port = freePort();
      List<String> command = java(SERVER_MAIN);
      command.add("--port=" + port);
      command.add("--use_tls=" + tls);
      command.add("--address_type=IPV4"); // 127.0.0.1 (and the host name's IPv4 address) only
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      Server server = new Server(port, process);
      CompletableFuture<Void> started = new CompletableFuture<>();
      Thread reader = new Thread(() -> server.pump(started), "stock-interop-server-output");
      reader.setDaemon(true);
      reader.start();
      try {
        started.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (Exception e) {
        server.close();
        throw new AssertionError("the stock interop server did not start:\n" + server.output, e);
      }
      return server;
    }

    private void pump(CompletableFuture<Void> started) {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          output.append(line).append('\n');
          if (line.startsWith("Server started on port")) {
            started.complete(null);
          }
        }
      } catch (IOException e) {
        started.completeExceptionally(e);
      }
      started.completeExceptionally(new IllegalStateException("the server exited"));
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** What one stock client run printed and how it exited. */
  static final class ClientRun {
    final int exitCode;
    final String output;

    ClientRun(int exitCode, String output) {
      this.exitCode = exitCode;
      this.output = output;
    }
  }

  /** Runs one case with the stock client against a plaintext server on 127.0.0.1:{@code port}. */
  static ClientRun runClient(int port, String testCase) throws Exception {
    return runClient(port, testCase, false);
  }

  /**
   * Runs one case with the stock client against a server on 127.0.0.1:{@code port}; with {@code
   * tls} the client trusts grpc's test CA and expects the name {@link GrpcTestCertificates#SERVER_NAME}.
   */
  static ClientRun runClient(int port, String testCase, boolean tls) throws Exception {
    List<String> command = java(CLIENT_MAIN);
    command.add("--server_host=127.0.0.1");
    command.add("--server_port=" + port);
    command.add("--test_case=" + testCase);
    command.add("--use_tls=" + tls);
    if (tls) {
      command.add("--use_test_ca=true");
      command.add("--server_host_override=" + GrpcTestCertificates.SERVER_NAME);
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
      try {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "cannot read output: " + e;
      }
    });
    if (!process.waitFor(CLIENT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      return new ClientRun(-1, "timed out after " + CLIENT_TIMEOUT_SECONDS + " s\n" + output.getNow(""));
    }
    return new ClientRun(process.exitValue(), output.get(10, TimeUnit.SECONDS));
  }
}
