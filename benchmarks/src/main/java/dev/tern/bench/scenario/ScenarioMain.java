package dev.tern.bench.scenario;

import dev.tern.bench.report.Json;
import dev.tern.bench.report.MarkdownReport;
import dev.tern.bench.report.Row;
import dev.tern.bench.report.SvgCdf;
import dev.tern.bench.stack.RpcStack;
import dev.tern.bench.stack.RpcStacks;
import dev.tern.bench.stack.TlsMaterial;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The scenario benchmark: every variant side by side on every profile, server and client in
 * separate JVMs on either side of the emulated link, through the public API only. Writes {@code
 * results.json}, {@code results.md} and {@code report.svg} into the output directory and exits
 * non-zero if a figure beats the link's physical limit (a measurement bug) or a run failed.
 */
@Command(name = "scenario", mixinStandardHelpOptions = true,
    description = "Compares Tern transports and stock grpc-netty on emulated links.")
public final class ScenarioMain implements Callable<Integer> {
  @Option(names = "--profiles", split = ",", description = "link profiles (default: ${DEFAULT-VALUE})",
      defaultValue = "mobile,mobile-tail,crowded,lossy-fat,lte-verizon")
  List<String> profiles;

  @Option(names = "--variants", split = ",",
      description = "stack[:kernel-cc] columns; default: grpc-netty:cubic, tcp:cubic, tcp:bbr, each other transport")
  List<String> variants;

  @Option(names = "--scenarios", split = ",", defaultValue = "unary,feed,bulk,setup",
      description = "scenarios (default: ${DEFAULT-VALUE}); also: scale; migration and fallback are reported as not run")
  List<String> scenarios;

  @Option(names = "--reps", defaultValue = "5", description = "repetitions (default: ${DEFAULT-VALUE})")
  int reps;

  @Option(names = "--seed", defaultValue = "1", description = "seed of the link and the workload")
  long seed;

  @Option(names = "--out", description = "output directory (default: target/scenario-<time>)")
  Path out;

  @Option(names = "--smoke", description = "tiny sizes: checks the pipeline, measures nothing worth quoting")
  boolean smoke;

  @Option(names = "--unary-calls", description = "sequential unary calls per repetition")
  Integer unaryCalls;

  @Option(names = "--bulk-bytes", description = "bulk download size, overriding the per-profile size")
  Long bulkBytes;

  @Option(names = "--cap-seconds", defaultValue = "45", description = "longest one download may run")
  int capSeconds;

  @Option(names = "--scale-idle", description = "scale: idle connections (default 500; --smoke: 20)")
  Integer scaleIdle;

  @Option(names = "--scale-active", defaultValue = "16", description = "scale: connections making calls")
  int scaleActive;

  @Option(names = "--scale-seconds", description = "scale: seconds of active calls (default 20; --smoke: 3)")
  Integer scaleSeconds;

  @Option(names = "--plaintext-tcp",
      description = "run the kernel-TCP stacks without TLS (QUIC always uses TLS); default: TLS everywhere")
  boolean plaintextTcp;

  @Option(names = "--classpath", description = "class path of the child JVMs (default: this JVM's)")
  String classpath;

  /** Entry point; exits with 0 on success, 1 when the run failed its checks. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new ScenarioMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    long startNs = System.nanoTime();
    Path dir = out != null ? out : Path.of("target", "scenario-" + Instant.now().toString().replace(':', '-'));
    Files.createDirectories(dir.resolve("raw"));
    String cp = classpath != null ? classpath : System.getProperty("java.class.path");
    Path tlsDir = dir.resolve("tls");
    Files.createDirectories(tlsDir);
    TlsMaterial.generate().writeTo(tlsDir);
    List<Variant> vs = new ArrayList<>();
    if (variants == null || variants.isEmpty()) {
      vs.addAll(Variant.defaults(RpcStacks.transportNames()));
    } else {
      for (String v : variants) {
        vs.add(Variant.parse(v));
      }
    }
    Map<String, String> skipped = new LinkedHashMap<>();
    List<Variant> runnable = new ArrayList<>();
    for (Variant v : vs) {
      RpcStack s = RpcStacks.byName(v.stack());
      if (s.isAvailable()) {
        runnable.add(v);
      } else {
        skipped.put(v.label(), s.unavailableReason());
        log(startNs, v.label() + " skipped: " + s.unavailableReason());
      }
    }
    List<String> labels = runnable.stream().map(Variant::label).toList();
    Aggregator agg = new Aggregator();
    Map<String, Object> profilesJson = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    for (String profile : profiles) {
      LinkSpec link = LinkSpec.byName(profile);
      Map<String, String> ccInForce = new LinkedHashMap<>();
      profilesJson.put(profile, Map.of("downMbps", link.downBitsPerSecond() / 1e6, "upMbps",
          link.upBitsPerSecond() / 1e6, "rttMs", link.rttMillis(), "loss", link.loss(), "jitterMs",
          link.jitterMillis(), "trace", link.trace(), "kernelCongestionControlInForce", ccInForce));
      ClientConfig config = configFor(link);
      RawResults reference = null;
      List<String> stacksRun = new ArrayList<>();
      for (Variant v : runnable) {
        String tag = profile + "-" + v.label().replace('/', '-');
        if (!link.shaped() && v.kernelCc() != null && stacksRun.contains(v.stack())) {
          log(startNs, tag + " skipped: loopback cannot choose the kernel's congestion control");
          continue;
        }
        stacksRun.add(v.stack());
        try {
          Path tls = plaintextTcp && Variant.onKernelTcp(v.stack()) ? null : tlsDir;
          RawResults r = runVariant(profile, v, tag, dir, cp, tls, config, ccInForce, startNs);
          agg.add(link, v.label(), r, reference);
          if (reference == null) {
            reference = r;
          }
          // Written after every variant, so a run cut short still leaves every finished figure.
          writeOutputs(dir, agg, labels, skipped, profilesJson, startNs);
        } catch (Exception e) {
          failures.add(tag + ": " + e.getMessage());
          log(startNs, tag + " FAILED: " + e);
        }
      }
    }
    agg.violations().addAll(failures);
    writeOutputs(dir, agg, labels, skipped, profilesJson, startNs);
    if (!agg.violations().isEmpty()) {
      System.err.println("FAILED: " + String.join("\n  ", agg.violations()));
      return 1;
    }
    return 0;
  }

  private RawResults runVariant(String profile, Variant v, String tag, Path dir, String cp, Path tls,
      ClientConfig config, Map<String, String> ccInForce, long startNs) throws Exception {
    Lab lab = Labs.open(profile, seed, v.kernelCc(), dir.resolve("raw").resolve(tag + "-packets.tsv"));
    Path raw;
    try {
      if (v.kernelCc() != null) {
        ccInForce.put(v.label(), lab.tcpCongestionControl());
      }
      log(startNs, tag + " starting (link " + profile + ", seed " + seed + ", kernel TCP congestion control: "
          + lab.tcpCongestionControl() + ", " + (tls == null ? "plaintext" : "TLS") + ")");
      raw = new ProcessPair(lab, cp, dir.resolve("raw")).run(tag, v.stack(), tls, scenarios, reps, config,
          60L * 60, msg -> log(startNs, tag + ": " + msg));
    } finally {
      lab.close();
    }
    RawResults r = RawResults.parse(raw, reps);
    List<Integer> rts = lab.roundTrips();
    if (rts.size() == reps) {
      for (int i = 0; i < reps; i++) {
        r.putMetric(i, SetupScenario.NAME, "round_trips", rts.get(i));
      }
    } else if (!rts.isEmpty()) {
      r.notes.add("setup packet-log windows: " + rts.size() + " for " + reps + " repetitions; round trips left out");
    }
    return r;
  }

  private ClientConfig configFor(LinkSpec link) {
    if (smoke) {
      return new ClientConfig(unaryCalls != null ? unaryCalls : 5, 32, 1,
          bulkBytes != null ? bulkBytes : 128 * 1024, capSeconds, 1, seed,
          scaleIdle != null ? scaleIdle : 20, Math.min(scaleActive, 4), scaleSeconds != null ? scaleSeconds : 3);
    }
    long bulk = bulkBytes != null ? bulkBytes : defaultBulkBytes(link);
    return new ClientConfig(unaryCalls != null ? unaryCalls : 20, 64, 1, bulk, capSeconds, 1, seed,
        scaleIdle != null ? scaleIdle : 500, scaleActive, scaleSeconds != null ? scaleSeconds : 20);
  }

  /** 20 MiB where the link is fast or unshaped, 2 MiB on links of 2 Mbit/s and over, 1 MiB below. */
  static long defaultBulkBytes(LinkSpec link) {
    if (!link.shaped() || link.downBitsPerSecond() >= 20e6) {
      return 20L << 20;
    }
    return link.downBitsPerSecond() >= 2e6 ? 2L << 20 : 1L << 20;
  }

  private void writeOutputs(Path dir, Aggregator agg, List<String> labels, Map<String, String> skipped,
      Map<String, Object> profilesJson, long startNs) throws Exception {
    Map<String, String> notApplicable = NotApplicable.reasons(RpcStacks.transportNames(), labels, scenarios);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("date", Instant.now().toString());
    json.put("command", String.join(" ", commandLine()));
    json.put("reps", reps);
    json.put("seed", seed);
    json.put("smoke", smoke);
    json.put("tls", plaintextTcp ? "QUIC only (kernel-TCP stacks in plaintext)" : "every stack");
    json.put("variants", labels);
    json.put("reference", labels.isEmpty() ? null : labels.get(0));
    json.put("skipped", skipped);
    json.put("notApplicable", notApplicable);
    json.put("profiles", profilesJson);
    json.put("violations", agg.violations());
    List<Object> rows = new ArrayList<>();
    for (Row r : agg.rows()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("profile", r.profile());
      m.put("scenario", r.scenario());
      m.put("metric", r.metric());
      m.put("variant", r.variant());
      m.put("unit", r.unit());
      m.put("n", r.ci().n());
      m.put("mean", r.ci().mean());
      m.put("ci95", r.ci().halfWidth());
      m.put("ideal", r.ideal());
      m.put("ratioToIdeal", r.ratioToIdeal());
      m.put("ratioToReference", r.ratioToReference());
      m.put("lowerIsBetter", r.lowerIsBetter());
      rows.add(m);
    }
    json.put("rows", rows);
    Files.writeString(dir.resolve("results.json"), Json.write(json), StandardCharsets.UTF_8);
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "Run %s, %d repetitions, seed %d; reference column: %s. Cells: mean ± 95%% "
        + "half-interval over repetitions (× the link's ideal, × the reference).%n", json.get("date"), reps, seed,
        json.get("reference")));
    skipped.forEach((k, v) -> md.append("\n- skipped ").append(k).append(": ").append(v));
    notApplicable.forEach((k, v) -> md.append("\n- ").append(k).append(": ").append(v));
    agg.violations().forEach(v -> md.append("\n- **FAILED**: ").append(v));
    md.append("\n\n### Summary\n\n").append(MarkdownReport.summary(agg.rows(), labels));
    md.append("\n### All figures\n").append(MarkdownReport.tables(agg.rows(), labels));
    Files.writeString(dir.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("report.svg"), SvgCdf.render(agg.merged(), labels), StandardCharsets.UTF_8);
    log(startNs, "wrote " + dir.resolve("results.json") + ", results.md, report.svg");
  }

  private List<String> commandLine() {
    return ProcessHandle.current().info().arguments().map(List::of).orElse(List.of());
  }

  private static void log(long startNs, String msg) {
    long s = (System.nanoTime() - startNs) / 1_000_000_000L;
    System.out.printf(Locale.ROOT, "[%02d:%02d] %s%n", s / 60, s % 60, msg);
    System.out.flush();
  }
}
