package dev.tern.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link RestartServerMain} in a process of its own, for tests that kill a server with
 * SIGKILL and start it again on the same port.
 */
final class RestartServerProcess {
  private static final long START_TIMEOUT_SECONDS = 60;

  private RestartServerProcess() {}

  /** A loopback port free for TCP and UDP both, so that any transport can listen on it. */
  static int freePort() throws IOException {
    for (int attempt = 0; attempt < 20; attempt++) {
      int port;
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress("127.0.0.1", 0));
        port = s.getLocalPort();
      }
      try (DatagramSocket d = new DatagramSocket(new InetSocketAddress("127.0.0.1", port))) {
        return port;
      } catch (IOException taken) {
        // in use for UDP: try another
      }
    }
    throw new IOException("no loopback port free for both TCP and UDP");
  }

  /**
   * Starts the server and waits until it listens: {@code certFile} and {@code keyFile} are the
   * PEM files for {@code quic}, {@code udpKey} the static key for {@code udp}; each is ignored by
   * the other transports.
   */
  static Process start(String transport, int port, Path certFile, Path keyFile, byte[] udpKey) throws Exception {
    String surefire = System.getProperty("surefire.test.class.path");
    String classPath = surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classPath, RestartServerMain.class.getName(),
        transport, Integer.toString(port)));
    if (transport.equals("quic")) {
      command.add(certFile.toString());
      command.add(keyFile.toString());
    } else if (transport.equals("udp")) {
      command.add(HexFormat.of().formatHex(udpKey));
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    CompletableFuture<Void> ready = new CompletableFuture<>();
    StringBuffer output = new StringBuffer();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          output.append(line).append('\n');
          if (line.startsWith("READY")) {
            ready.complete(null);
          }
        }
      } catch (IOException e) {
        ready.completeExceptionally(e);
      }
      ready.completeExceptionally(new IllegalStateException("the server exited:\n" + output));
    }, "restart-server-output");
    reader.setDaemon(true);
    reader.start();
    try {
      ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      throw e;
    }
    return process;
  }
}
