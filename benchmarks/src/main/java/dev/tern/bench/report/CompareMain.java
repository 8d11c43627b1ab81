package dev.tern.bench.report;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Compares two runs of the scenario benchmark cell by cell: every figure present in both {@code
 * results.json} files (same profile, scenario, metric and variant, a mean in each) is called
 * worse or better only when the two 95% intervals over repetitions do not overlap, in the
 * direction the figure's {@code lowerIsBetter} says. The intervals are those the benchmark wrote;
 * a figure with one repetition has none, so any difference in it counts. This is how the runs
 * in docs/benchmarks.md are compared with each other.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Compares two results.json files of the scenario benchmark, cell by cell.")
public final class CompareMain implements Callable<Integer> {
  @Parameters(index = "0", description = "results.json of the earlier run")
  Path before;

  @Parameters(index = "1", description = "results.json of the later run")
  Path after;

  /** One figure: its mean, its 95% half-interval (0 when none was written), unit and direction. */
  record Cell(double mean, double ci95, String unit, boolean lowerIsBetter) {
    boolean overlaps(Cell o) {
      return mean + ci95 >= o.mean - o.ci95 && o.mean + o.ci95 >= mean - ci95;
    }
  }

  /** A cell whose intervals do not overlap in the two runs. */
  record Change(String key, Cell before, Cell after) {
    boolean worse() {
      return (after.mean > before.mean) == before.lowerIsBetter;
    }
  }

  /** What the comparison found. */
  record Comparison(int shared, int onlyBefore, int onlyAfter, List<Change> worse, List<Change> better) {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new CompareMain()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    Comparison c = compare(read(before), read(after));
    print(c, System.out);
    return 0;
  }

  static Comparison compare(Map<String, Cell> a, Map<String, Cell> b) {
    List<Change> worse = new ArrayList<>();
    List<Change> better = new ArrayList<>();
    int shared = 0;
    for (Map.Entry<String, Cell> e : a.entrySet()) {
      Cell after = b.get(e.getKey());
      if (after == null) {
        continue;
      }
      shared++;
      if (!e.getValue().overlaps(after)) {
        Change change = new Change(e.getKey(), e.getValue(), after);
        (change.worse() ? worse : better).add(change);
      }
    }
    int onlyAfter = (int) b.keySet().stream().filter(k -> !a.containsKey(k)).count();
    return new Comparison(shared, a.size() - shared, onlyAfter, worse, better);
  }

  static void print(Comparison c, PrintStream out) {
    out.printf(Locale.ROOT, "cells in both runs: %d (only in the earlier: %d, only in the later: %d)%n",
        c.shared(), c.onlyBefore(), c.onlyAfter());
    out.printf(Locale.ROOT, "worse beyond both 95%% intervals: %d%n", c.worse().size());
    c.worse().forEach(ch -> out.println("  " + format(ch)));
    out.printf(Locale.ROOT, "better beyond both 95%% intervals: %d%n", c.better().size());
    c.better().forEach(ch -> out.println("  " + format(ch)));
  }

  private static String format(Change ch) {
    return String.format(Locale.ROOT, "%s: %.4g ± %.3g -> %.4g ± %.3g %s", ch.key(), ch.before().mean(),
        ch.before().ci95(), ch.after().mean(), ch.after().ci95(), ch.before().unit());
  }

  /** The cells of one {@code results.json}, keyed "profile / scenario / metric / variant". */
  static Map<String, Cell> read(Path file) throws IOException {
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return cells(JsonParser.parseReader(r), file.toString());
    } catch (JsonParseException | IllegalStateException e) {
      throw new IOException(file + ": not a results.json of the scenario benchmark: " + e.getMessage(), e);
    }
  }

  static Map<String, Cell> cells(JsonElement root, String source) throws IOException {
    JsonElement rows = root.isJsonObject() ? root.getAsJsonObject().get("rows") : null;
    if (rows == null || !rows.isJsonArray()) {
      throw new IOException(source + ": no \"rows\" array; not a results.json of the scenario benchmark");
    }
    Map<String, Cell> cells = new TreeMap<>();
    JsonArray array = rows.getAsJsonArray();
    for (int i = 0; i < array.size(); i++) {
      JsonObject row = array.get(i).getAsJsonObject();
      JsonElement mean = row.get("mean");
      if (mean == null || mean.isJsonNull()) {
        continue;
      }
      JsonElement ci = row.get("ci95");
      String key = text(row, "profile") + " / " + text(row, "scenario") + " / " + text(row, "metric") + " / "
          + text(row, "variant");
      JsonElement lower = row.get("lowerIsBetter");
      cells.put(key, new Cell(mean.getAsDouble(), ci == null || ci.isJsonNull() ? 0 : ci.getAsDouble(),
          text(row, "unit"), lower == null || lower.isJsonNull() || lower.getAsBoolean()));
    }
    return cells;
  }

  private static String text(JsonObject row, String field) {
    JsonElement e = row.get(field);
    return e == null || e.isJsonNull() ? "" : e.getAsString();
  }
}
