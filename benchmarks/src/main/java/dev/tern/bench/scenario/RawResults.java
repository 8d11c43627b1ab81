package dev.tern.bench.scenario;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/** What one client process reported: per-repetition metrics and histograms, and notes. */
final class RawResults {
  /** "scenario metric" to values by repetition (NaN where a repetition has none). */
  final Map<String, double[]> metrics = new TreeMap<>();
  /** "scenario series" to histograms by repetition (null where a repetition has none). */
  final Map<String, Histogram[]> histograms = new TreeMap<>();
  final List<String> notes = new ArrayList<>();
  /** Facts that are not errors, "scenario text" (e.g. the status an expected failure came with). */
  final List<String> outcomes = new ArrayList<>();
  private final int reps;

  RawResults(int reps) {
    this.reps = reps;
  }

  /** Adds a metric value measured by the orchestrator itself. */
  void putMetric(int rep, String scenario, String name, double value) {
    metrics.computeIfAbsent(scenario + " " + name, k -> nan(reps))[rep] = value;
  }

  static RawResults parse(Path file, int reps) throws IOException, DataFormatException {
    RawResults r = new RawResults(reps);
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] f = line.split(" ", 5);
      switch (f[0]) {
        case "metric" -> r.putMetric(Integer.parseInt(f[1]), f[2], f[3], Double.parseDouble(f[4]));
        case "hist" -> r.histograms.computeIfAbsent(f[2] + " " + f[3], k -> new Histogram[reps])[
            Integer.parseInt(f[1])] = Histogram.decodeFromCompressedByteBuffer(
                ByteBuffer.wrap(Base64.getDecoder().decode(f[4])), 0);
        case "note" -> r.notes.add(line.substring(5));
        case "outcome" -> r.outcomes.add(line.substring(8));
        default -> throw new IOException("unexpected line in " + file + ": " + line);
      }
    }
    return r;
  }

  private static double[] nan(int n) {
    double[] d = new double[n];
    java.util.Arrays.fill(d, Double.NaN);
    return d;
  }
}
