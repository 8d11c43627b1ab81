package dev.tern.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * A shortened soak run (24 s, a sample every 2 s, the five faults once each) against real servers
 * and channels on loopback: the three files are written, every sample is there, and the summary
 * agrees with the samples it was made from.
 */
class SoakSmokeTest {
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void shortRunWritesConsistentFiles(@TempDir Path dir) throws Exception {
    int status = SoakMain.run("--smoke", "--seconds", "24", "--sample-seconds", "2", "--fault-seconds", "1.5",
        "--gap-seconds", "2.5", "--rate", "100", "--out", dir.toString());

    assertThat(dir.resolve("soak.json")).isRegularFile();
    assertThat(dir.resolve("soak.md")).isRegularFile();
    assertThat(dir.resolve("soak.svg")).isRegularFile();
    JsonObject json = JsonParser.parseString(Files.readString(dir.resolve("soak.json"))).getAsJsonObject();
    List<String> transports = new ArrayList<>();
    json.getAsJsonArray("transports").forEach(e -> transports.add(e.getAsString()));
    assertThat(transports).contains("tcp");

    // The verdict and the exit status agree, and the verdict lists its reasons.
    boolean passed = json.get("passed").getAsBoolean();
    assertThat(passed).isEqualTo(json.getAsJsonArray("violations").isEmpty());
    assertThat(status).as("exit status; violations: %s", json.get("violations")).isEqualTo(passed ? 0 : 1);

    // One sample per 2 s, every transport in each, in time order.
    JsonArray samples = json.getAsJsonArray("samples");
    assertThat(samples.size()).isEqualTo(12);
    double prev = 0;
    for (JsonElement e : samples) {
      JsonObject s = e.getAsJsonObject();
      assertThat(s.get("seconds").getAsDouble()).isGreaterThan(prev);
      prev = s.get("seconds").getAsDouble();
      assertThat(s.get("heapAfterGcMiB").getAsDouble()).isPositive();
      assertThat(s.get("threads").getAsInt()).isPositive();
      assertThat(s.get("fds").getAsInt()).isPositive();
      assertThat(s.get("rssMiB").getAsDouble()).isPositive();
      assertThat(s.getAsJsonObject("transports").keySet()).containsExactlyElementsOf(transports);
    }

    // The summary's first/last/max are the samples' own.
    JsonObject summary = json.getAsJsonObject("summary");
    for (String figure : List.of("heapAfterGcMiB", "threads", "fds", "rssMiB")) {
      JsonObject f = summary.getAsJsonObject(figure);
      double first = samples.get(0).getAsJsonObject().get(figure).getAsDouble();
      double last = samples.get(samples.size() - 1).getAsJsonObject().get(figure).getAsDouble();
      double max = 0;
      for (JsonElement e : samples) {
        max = Math.max(max, e.getAsJsonObject().get(figure).getAsDouble());
      }
      assertThat(f.get("first").getAsDouble()).as(figure + " first").isEqualTo(first);
      assertThat(f.get("last").getAsDouble()).as(figure + " last").isEqualTo(last);
      assertThat(f.get("max").getAsDouble()).as(figure + " max").isEqualTo(max);
    }
    JsonObject threads = summary.getAsJsonObject("threads");
    assertThat(threads.get("secondHalfGrowth").getAsLong())
        .isEqualTo(threads.get("secondHalfFloorLast").getAsLong() - threads.get("secondHalfFloorFirst").getAsLong());

    // Per transport: the summary's call totals are the samples' sums, split by fault without loss;
    // the steady load ran, and its failures add up to what it counted.
    long downloads = 0;
    for (String t : transports) {
      long ok = 0;
      long failed = 0;
      long unary = 0;
      for (JsonElement e : samples) {
        JsonObject p = e.getAsJsonObject().getAsJsonObject("transports").getAsJsonObject(t);
        ok += p.get("ok").getAsLong();
        for (Map.Entry<String, JsonElement> c : p.getAsJsonObject("failed").entrySet()) {
          failed += c.getValue().getAsLong();
        }
        unary += p.get("unaryCalls").getAsLong();
      }
      JsonObject calls = summary.getAsJsonObject("calls").getAsJsonObject(t);
      assertThat(calls.get("ok").getAsLong()).as(t + " ok").isEqualTo(ok);
      assertThat(calls.get("failed").getAsLong()).as(t + " failed").isEqualTo(failed);
      assertThat(calls.get("steadyUnaryOk").getAsLong()).isEqualTo(unary);
      assertThat(sum(summary.getAsJsonObject("metricFailuresBySampleFault").getAsJsonObject(t))).isEqualTo(failed);
      JsonObject load = json.getAsJsonObject("loadCalls").getAsJsonObject(t);
      assertThat(unary).as(t + " steady unary calls completed").isPositive()
          .isLessThanOrEqualTo(load.get("unaryOk").getAsLong());
      downloads += load.get("downloadsOk").getAsLong();
      assertThat(load.get("chatEchoes").getAsLong()).as(t + " chat echoes").isPositive();
      assertThat(ok).as(t + " calls OK in the metrics").isGreaterThanOrEqualTo(unary);
      assertThat(sum(summary.getAsJsonObject("loadFailures").getAsJsonObject(t)))
          .isEqualTo(load.get("failed").getAsLong());
    }

    // A 1 MiB download can take most of the short run on a loaded machine; one of them must end.
    assertThat(downloads).as("downloads completed").isPositive();

    // Each fault ran once, in order, and did what it is for.
    JsonArray faults = json.getAsJsonArray("faults");
    assertThat(faults.size()).isEqualTo(Fault.values().length);
    for (int i = 0; i < faults.size(); i++) {
      assertThat(faults.get(i).getAsJsonObject().get("fault").getAsString()).isEqualTo(Fault.values()[i].label());
      assertThat(faults.get(i).getAsJsonObject().getAsJsonObject("detail").has("error")).isFalse();
    }
    boolean datagrams = transports.contains("quic") || transports.contains("udp");
    if (datagrams) {
      assertThat(detail(faults, 0).get("datagramsDropped").getAsLong()).isPositive();
      assertThat(detail(faults, 1).get("datagramsSent").getAsLong()).isPositive();
    }
    assertThat(detail(faults, 2).getAsJsonObject("callsEndedBy").has("DEADLINE_EXCEEDED")).isTrue();
    assertThat(detail(faults, 3).getAsJsonObject("callsEndedBy").has("CANCELLED")).isTrue();
    // The stalled reader read at most its one message on every channel (exactly one where its
    // transport was up: a short run on a loaded machine may catch a transport reconnecting).
    // Over tcp, whose flow control is the kernel's and HTTP/2's, what the server could push into
    // the stream nobody reads is bounded by the windows, far below the download's size.
    JsonObject stalled = detail(faults, 4).getAsJsonObject("stalled");
    long readOne = 0;
    for (String t : transports) {
      long read = stalled.getAsJsonObject(t).get("messagesRead").getAsLong();
      assertThat(read).as(t + " stalled reader read").isBetween(0L, 1L);
      readOne += read;
    }
    assertThat(readOne).as("stalled readers that read their one message").isPositive();
    if (stalled.getAsJsonObject("tcp").get("messagesRead").getAsLong() == 1) {
      assertThat(stalled.getAsJsonObject("tcp").get("serverCommittedKiB").getAsLong())
          .as("tcp: committed to the stalled stream").isBetween(32L, FaultInjector.STALLED_BYTES / 1024 / 4);
    }

    // The Markdown has the verdict, the summary and a row per sample; the SVG is well formed, with
    // a line per figure and transport and each fault window shaded in each of its five panels.
    String md = Files.readString(dir.resolve("soak.md"));
    assertThat(md).contains("## Verdict: " + (passed ? "passed" : "FAILED")).contains("| heap after GC (MiB) |")
        .contains("## Errors per transport and fault window");
    String table = md.substring(md.indexOf("## Samples"));
    assertThat(table.lines().filter(l -> l.matches("\\| \\d.*")).count()).isEqualTo(samples.size());
    String svg = Files.readString(dir.resolve("soak.svg"));
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(4 + transports.size());
    assertThat(svg.split("<title>" + Fault.DROP.label() + "</title></rect>", -1).length - 1).isEqualTo(5);
  }

  private static JsonObject detail(JsonArray faults, int i) {
    return faults.get(i).getAsJsonObject().getAsJsonObject("detail");
  }

  private static long sum(JsonObject counts) {
    long n = 0;
    for (Map.Entry<String, JsonElement> e : counts.entrySet()) {
      n += e.getValue().getAsLong();
    }
    return n;
  }
}
