package dev.tern.netlab.link;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A mahimahi packet-delivery trace: each entry is the millisecond (from the start of the trace)
 * of one delivery opportunity for {@link #OPPORTUNITY_BYTES} bytes. Several equal entries mean
 * several opportunities in that millisecond. The schedule repeats with a period equal to its last
 * entry, as mahimahi's link shell does.
 *
 * <p>Immutable and shareable between links.
 */
public final class TraceSchedule {
  /** Bytes one delivery opportunity can carry (one MTU-sized packet). */
  public static final int OPPORTUNITY_BYTES = 1500;

  private final String name;
  private final String source;
  private final long[] opportunityMs;
  private final long periodMs;

  private TraceSchedule(String name, String source, long[] opportunityMs) {
    this.name = name;
    this.source = source;
    this.opportunityMs = opportunityMs;
    this.periodMs = opportunityMs[opportunityMs.length - 1];
  }

  /**
   * Builds a schedule from opportunity times in milliseconds.
   *
   * @param name a label for messages and reports
   * @param opportunityMs non-decreasing, non-negative times; the last one (the period) must be
   *     positive
   * @throws IllegalArgumentException naming the offending entry
   */
  public static TraceSchedule of(String name, long... opportunityMs) {
    return of(name, name, opportunityMs);
  }

  private static TraceSchedule of(String name, String source, long... opportunityMs) {
    if (opportunityMs == null || opportunityMs.length == 0) {
      throw new IllegalArgumentException("trace " + name + ": no delivery opportunities");
    }
    long[] copy = opportunityMs.clone();
    for (int i = 0; i < copy.length; i++) {
      if (copy[i] < 0 || (i > 0 && copy[i] < copy[i - 1])) {
        throw new IllegalArgumentException("trace " + name + ": entry " + i + " = " + copy[i]
            + " is negative or smaller than the previous entry");
      }
    }
    if (copy[copy.length - 1] <= 0) {
      throw new IllegalArgumentException("trace " + name + ": last entry (the period) must be > 0");
    }
    return new TraceSchedule(name, source, copy);
  }

  /**
   * Loads a mahimahi trace file (one integer per line; blank lines ignored). Its {@link #source()}
   * is the path as given.
   *
   * @throws UncheckedIOException naming the file when it cannot be read
   * @throws IllegalArgumentException naming the file and line when an entry is malformed
   */
  public static TraceSchedule load(Path file) {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
      return parse(file.getFileName().toString(), file.toString(), "trace file " + file, in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read trace file " + file, e);
    }
  }

  /**
   * Reads a mahimahi trace from {@code in} (closed by the caller), for traces that are not files
   * (a class-path resource, say).
   *
   * @param name the label (usually the file name)
   * @param source where it came from, for {@link #source()} and messages
   * @throws UncheckedIOException naming the source when it cannot be read
   * @throws IllegalArgumentException naming the source and line when an entry is malformed
   */
  public static TraceSchedule read(String name, String source, InputStream in) {
    try {
      return parse(name, source, "trace " + source, new BufferedReader(
          new InputStreamReader(in, StandardCharsets.US_ASCII)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read trace " + source, e);
    }
  }

  private static TraceSchedule parse(String name, String source, String what, BufferedReader in)
      throws IOException {
    long[] values = new long[1 << 14];
    int n = 0;
    int lineNo = 0;
    String line;
    while ((line = in.readLine()) != null) {
      lineNo++;
      String s = line.trim();
      if (s.isEmpty()) {
        continue;
      }
      long v;
      try {
        v = Long.parseLong(s);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(what + " line " + lineNo + ": not an integer: '" + s + "'", e);
      }
      if (n == values.length) {
        values = Arrays.copyOf(values, n * 2);
      }
      values[n++] = v;
    }
    return of(name, source, Arrays.copyOf(values, n));
  }

  /** The label given at construction (the file name for loaded traces). */
  public String name() {
    return name;
  }

  /**
   * Where the trace came from: the path it was loaded from, {@code bundled:<file>} for the
   * traces shipped with netlab, or the name for a schedule built with {@link #of}.
   */
  public String source() {
    return source;
  }

  /** Number of delivery opportunities in one period. */
  public int size() {
    return opportunityMs.length;
  }

  /** The millisecond of opportunity {@code i} within a period. */
  public long opportunityMs(int i) {
    return opportunityMs[i];
  }

  /** The period after which the schedule repeats, in milliseconds. */
  public long periodMs() {
    return periodMs;
  }

  /** Mean rate over one period: opportunities x 1500 bytes x 8 / period. */
  public long meanRateBitsPerSecond() {
    return Math.round(opportunityMs.length * (double) OPPORTUNITY_BYTES * 8 * 1000 / periodMs);
  }

  /** Index of the first opportunity at or after {@code msInPeriod}, or {@link #size()}. */
  int firstAtOrAfter(long msInPeriod) {
    int lo = 0;
    int hi = opportunityMs.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (opportunityMs[mid] < msInPeriod) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  @Override
  public String toString() {
    return "TraceSchedule{" + name + ", " + opportunityMs.length + " opportunities, period "
        + periodMs + " ms, mean " + meanRateBitsPerSecond() + " bit/s}";
  }
}
