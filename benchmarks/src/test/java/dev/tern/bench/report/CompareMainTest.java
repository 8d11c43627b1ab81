package dev.tern.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompareMainTest {
  @TempDir
  Path dir;

  @Test
  void callsACellWorseOrBetterOnlyWhenTheIntervalsDoNotOverlap() throws IOException {
    Path before = write("before.json", List.of(
        row("mobile", "unary", "seq p50", "udp", 100, 5.0, true),      // latency, overlapping after
        row("mobile", "unary", "seq p99", "udp", 100, 5.0, true),      // latency, worse after
        row("mobile", "bulk", "goodput", "udp", 10, 1.0, false),       // goodput, worse after
        row("mobile", "bulk", "goodput", "quic", 10, 1.0, false),      // goodput, better after
        row("mobile", "setup", "first", "udp", 200, null, true),       // one repetition: no interval
        row("mobile", "feed", "worst", "udp", null, null, true),       // no mean: not a cell
        row("lte", "unary", "seq p50", "udp", 80, 2.0, true)));        // only in the earlier run
    Path after = write("after.json", List.of(
        row("mobile", "unary", "seq p50", "udp", 109, 5.0, true),
        row("mobile", "unary", "seq p99", "udp", 111, 5.0, true),
        row("mobile", "bulk", "goodput", "udp", 7.9, 1.0, false),
        row("mobile", "bulk", "goodput", "quic", 12.1, 1.0, false),
        row("mobile", "setup", "first", "udp", 190, null, true),
        row("mobile", "feed", "worst", "udp", 50, 1.0, true),
        row("mobile", "migration", "stall", "udp", 50, 1.0, true)));

    CompareMain.Comparison c = CompareMain.compare(CompareMain.read(before), CompareMain.read(after));

    assertThat(c.shared()).isEqualTo(5);
    assertThat(c.onlyBefore()).isEqualTo(1);
    assertThat(c.onlyAfter()).isEqualTo(2);
    assertThat(c.worse()).extracting(CompareMain.Change::key)
        .containsExactly("mobile / bulk / goodput / udp", "mobile / unary / seq p99 / udp");
    assertThat(c.better()).extracting(CompareMain.Change::key)
        .containsExactly("mobile / bulk / goodput / quic", "mobile / setup / first / udp");

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CompareMain.print(c, new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("cells in both runs: 5 (only in the earlier: 1, only in the later: 2)")
        .contains("worse beyond both 95% intervals: 2")
        .contains("mobile / unary / seq p99 / udp: 100.0 ± 5.00 -> 111.0 ± 5.00 ms");
  }

  @Test
  void refusesAFileThatIsNotAResultsFile() throws IOException {
    Path other = dir.resolve("other.json");
    Files.writeString(other, "{\"rows\": 3}");
    assertThatThrownBy(() -> CompareMain.read(other)).isInstanceOf(IOException.class)
        .hasMessageContaining("other.json").hasMessageContaining("\"rows\"");
    Path broken = dir.resolve("broken.json");
    Files.writeString(broken, "{\"rows\": [");
    assertThatThrownBy(() -> CompareMain.read(broken)).isInstanceOf(IOException.class)
        .hasMessageContaining("broken.json");
  }

  private Path write(String name, List<Map<String, Object>> rows) throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("date", "2026-12-05T00:00:00Z");
    root.put("rows", rows);
    Path file = dir.resolve(name);
    Files.writeString(file, Json.write(root));
    return file;
  }

  private static Map<String, Object> row(String profile, String scenario, String metric, String variant,
      Number mean, Double ci95, boolean lowerIsBetter) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("profile", profile);
    row.put("scenario", scenario);
    row.put("metric", metric);
    row.put("variant", variant);
    row.put("unit", "ms");
    row.put("n", 5);
    row.put("mean", mean == null ? null : mean.doubleValue());
    row.put("ci95", ci95);
    row.put("lowerIsBetter", lowerIsBetter);
    return row;
  }
}
