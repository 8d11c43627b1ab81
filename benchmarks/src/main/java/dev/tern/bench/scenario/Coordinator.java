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

  /** Asks the orchestrator for the server's port; returns once the server listens. */
  int serverPort() {
    String answer = ask("SYNC port");
    try {
      return Integer.parseInt(answer.trim());
    } catch (NumberFormatException e) {
      throw new IllegalStateException("no server port: " + answer, e);
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

  /**
   * Asks the orchestrator to block UDP on the link in both directions ({@code true}) or let it pass
   * again; returns once it has, fails if the lab cannot.
   */
  void blockUdp(boolean block) {
    String answer = ask(block ? "SYNC block-udp" : "SYNC unblock-udp");
    if (!answer.equals("ok")) {
      throw new IllegalStateException("UDP could not be " + (block ? "blocked" : "unblocked") + ": " + answer);
    }
  }

  /** Marks the start of repetition {@code rep}'s download in the packet log (for the link-side goodput). */
  void openDownloadWindow(int rep) {
    ask("SYNC open-download " + rep);
  }

  /** Marks the end of repetition {@code rep}'s download in the packet log. */
  void closeDownloadWindow(int rep) {
    ask("SYNC close-download " + rep);
  }

  /** Marks, in the packet log, that repetition {@code rep}'s feed is about to cancel every image. */
  void openCancelWindow(int rep) {
    ask("SYNC open-cancel " + rep);
  }

  /** Ends repetition {@code rep}'s cancel window; {@code images} were still loading when cancelled. */
  void closeCancelWindow(int rep, int images) {
    ask("SYNC close-cancel " + rep + " " + images);
  }

  /** Tells the orchestrator how long one scenario's repetition took (wall time), for the phase summary. */
  void timing(int rep, String scenario, long millis) {
    synchronized (System.out) {
      System.out.println("TIMING " + rep + " " + scenario + " " + millis);
      System.out.flush();
    }
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
