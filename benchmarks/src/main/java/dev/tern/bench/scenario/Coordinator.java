package dev.tern.bench.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The client's line protocol with the orchestrator over standard input and output: progress
 * lines, and synchronous requests (mark the packet log, count round trips) answered on stdin.
 */
final class Coordinator {
  private final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

  /** A line for the orchestrator to show. */
  void progress(String text) {
    synchronized (System.out) {
      System.out.println("PROGRESS " + text);
      System.out.flush();
    }
  }

  /** Asks the orchestrator to open a packet-log window; returns once it has. */
  void openWindow() {
    ask("SYNC open");
  }

  /** Asks the orchestrator to close the packet-log window; returns once it has. */
  void closeWindow() {
    ask("SYNC close");
  }

  /** Asks the orchestrator for a sample of the server process's resources. */
  ServerStats serverStats() {
    return ServerStats.parse(ask("SYNC stats"));
  }

  /** Asks the orchestrator to move the client to a new address; returns once it has, fails if it could not. */
  void moveClientAddress() {
    String answer = ask("SYNC move");
    if (!answer.equals("ok")) {
      throw new IllegalStateException("the client's address could not be moved: " + answer);
    }
  }

  private String ask(String request) {
    synchronized (System.out) {
      System.out.println(request);
      System.out.flush();
    }
    try {
      String line = in.readLine();
      if (line == null) {
        throw new IllegalStateException("orchestrator closed standard input while answering '" + request + "'");
      }
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
