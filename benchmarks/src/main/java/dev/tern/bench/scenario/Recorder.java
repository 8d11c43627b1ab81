package dev.tern.bench.scenario;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Writes a client's raw results, one line each, for the orchestrating process to read:
 * {@code metric <rep> <scenario> <name> <value>}, {@code hist <rep> <scenario> <series> <base64>}
 * (an HdrHistogram in its compressed encoding, values in microseconds), {@code note <scenario> <text>}
 * (an error) and {@code outcome <scenario> <text>} (a fact, not an error).
 */
final class Recorder implements AutoCloseable {
  private final PrintWriter out;

  Recorder(Path file) {
    try {
      out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("opening " + file, e);
    }
  }

  /** A latency histogram in microseconds, up to one hour, three significant digits. */
  static Histogram newHistogram() {
    return new Histogram(3_600_000_000L, 3);
  }

  synchronized void metric(int rep, String scenario, String name, double value) {
    out.printf(Locale.ROOT, "metric %d %s %s %s%n", rep, scenario, name, Double.toString(value));
    out.flush();
  }

  synchronized void histogram(int rep, String scenario, String series, Histogram h) {
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf);
    byte[] bytes = new byte[n];
    buf.flip();
    buf.get(bytes);
    out.printf(Locale.ROOT, "hist %d %s %s %s%n", rep, scenario, series, Base64.getEncoder().encodeToString(bytes));
    out.flush();
  }

  synchronized void note(String scenario, String text) {
    out.printf(Locale.ROOT, "note %s %s%n", scenario, text.replace('\n', ' '));
    out.flush();
  }

  /**
   * A fact about the run worth showing beside the figures that is not an error (for example the
   * status a call failed with where failing is the expected outcome).
   */
  synchronized void outcome(String scenario, String text) {
    out.printf(Locale.ROOT, "outcome %s %s%n", scenario, text.replace('\n', ' '));
    out.flush();
  }

  @Override
  public void close() {
    out.close();
  }
}
