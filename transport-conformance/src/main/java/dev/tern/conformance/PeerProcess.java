package dev.tern.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One side of a test run as a process of its own (a client or server in one of netlab's
 * namespaces), spoken to by lines: {@link #expect} waits for the line it announces, {@link #send}
 * answers on its standard input, and {@link #close} closes that input (the peers end when it
 * closes) and kills the process if it has not ended 5 s later. Its standard error goes to the
 * test's.
 */
public final class PeerProcess implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;
  private final Writer in;

  private PeerProcess(Process process) {
    this.process = process;
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /**
   * Starts {@code builder}'s command.
   *
   * @param builder the command (its standard error is sent to this process's)
   * @return the running peer
   * @throws IOException if it cannot be started
   */
  public static PeerProcess start(ProcessBuilder builder) throws IOException {
    return new PeerProcess(builder.redirectError(ProcessBuilder.Redirect.INHERIT).start());
  }

  /**
   * The next line starting with {@code prefix}; the lines before it are echoed to standard output.
   *
   * @param prefix how the awaited line starts
   * @param seconds how long to wait for it
   * @return the line
   * @throws IllegalStateException if the peer ends first, or the line does not come in time
   */
  public String expect(String prefix, long seconds) throws InterruptedException {
    CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
      try {
        for (String l = out.readLine(); l != null; l = out.readLine()) {
          if (l.startsWith(prefix)) {
            return l;
          }
          System.out.println("peer: " + l);
        }
        throw new IllegalStateException("the peer ended before printing " + prefix);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    try {
      return line.get(seconds, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("waiting for " + prefix + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("the peer printed no line starting with " + prefix + " in " + seconds + " s", e);
    }
  }

  /**
   * Writes {@code line} to the peer's standard input.
   *
   * @param line the line, without its end
   * @throws IOException if the peer's input is closed
   */
  public void send(String line) throws IOException {
    in.write(line + "\n");
    in.flush();
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      in.close();
    } catch (IOException ignored) {
      // the peer has ended already
    }
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
