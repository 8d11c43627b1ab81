package dev.tern.bench.scenario;

import dev.tern.bench.report.Json;
import dev.tern.bench.report.MarkdownReport;
import dev.tern.bench.report.Row;
import dev.tern.bench.report.SvgCdf;
import dev.tern.bench.stack.RpcStack;
import dev.tern.bench.stack.RpcStacks;
import dev.tern.bench.stack.TlsMaterial;
import dev.tern.netlab.cli.LinkOptions;
import dev.tern.netlab.link.CustomLinks;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import dev.tern.netlab.link.RandomLinks;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The scenario benchmark: every variant side by side on every profile, server and client in
 * separate JVMs on either side of the emulated link, through the public API only. Writes {@code
 * results.json}, {@code results.md} and {@code report.svg} into the output directory and exits
 * non-zero if a figure beats the link's physical limit (a measurement bug) or a run failed. The
 * links are named profiles ({@code --profiles}) and links of the user's own ({@code --link},
 * {@code --link-file}, {@code --random-link}; see {@link LinkOptions}), each printed in full
 * before the run.
 */
@Command(name = "scenario", mixinStandardHelpOptions = true,
    description = "Compares Tern transports and stock grpc-netty on emulated links.")
public final class ScenarioMain implements Callable<Integer> {
  /** The profiles run when neither {@code --profiles} nor a link of the user's own is given. */
  static final List<String> DEFAULT_PROFILES = List.of("mobile", "mobile-tail", "crowded", "lossy-fat", "lte-verizon");

  @Option(names = "--profiles", split = ",",
      description = "link profiles: loopback or netlab's (default: mobile,mobile-tail,crowded,lossy-fat,lte-verizon; "
          + "none when --link, --link-file or --random-link is given)")
  List<String> profiles;

  @Mixin
  LinkOptions links = new LinkOptions();

  @Spec
  CommandSpec spec;

  /** The links of this run by name, in order; null for loopback. */
  private final Map<String, LinkProfile> runLinks = new LinkedHashMap<>();

  @Option(names = "--variants", split = ",",
      description = "stack[:kernel-cc] columns; default: grpc-netty:cubic, tcp:cubic, tcp:bbr, each other transport")
  List<String> variants;

  @Option(names = "--scenarios", split = ",", defaultValue = "unary,feed,bulk,setup,migration,fallback",
      description = "scenarios (default: ${DEFAULT-VALUE}); also: scale")
  List<String> scenarios;

  @Option(names = "--reps", defaultValue = "5", description = "repetitions (default: ${DEFAULT-VALUE})")
  int reps;

  @Option(names = "--seed", defaultValue = "1", description = "seed of the link, the workload and --random-link")
  long seed;

  @Option(names = "--out", description = "output directory (default: target/scenario-<time>)")
  Path out;

  @Option(names = "--smoke", description = "tiny sizes: checks the pipeline, measures nothing worth quoting")
  boolean smoke;

  @Option(names = "--unary-calls", description = "sequential unary calls per repetition")
  Integer unaryCalls;

  @Option(names = "--bulk-bytes", description = "bulk download size, overriding the per-profile size")
  Long bulkBytes;

  @Option(names = "--migration-bytes", description = "migration download size (default: half the bulk size, at most 1 MiB)")
  Long migrationBytes;

  @Option(names = "--cap-seconds",
      description = "longest one download or feed screen may run (default: fitted to the link, 10-45 s)")
  Integer capSeconds;

  @Option(names = "--stall-seconds", description = "migration: no byte for this long after the move ends the wait")
  Integer stallSeconds;

  @Option(names = "--fallback-seconds", description = "fallback: time the first call gets before it counts as failed")
  Integer fallbackSeconds;

  @Option(names = "--scale-idle", description = "scale: idle connections (default 500; --smoke: 20)")
  Integer scaleIdle;

  @Option(names = "--scale-active", defaultValue = "16", description = "scale: connections making calls")
  int scaleActive;

  @Option(names = "--scale-seconds", description = "scale: seconds of active calls (default 20; --smoke: 3)")
  Integer scaleSeconds;

  @Option(names = "--plaintext-tcp",
      description = "run the kernel-TCP stacks without TLS (QUIC always uses TLS); default: TLS everywhere")
  boolean plaintextTcp;

  @Option(names = "--parallel", defaultValue = "1",
      description = "variants of a profile run at once, each on its own emulator (default: ${DEFAULT-VALUE})")
  int parallel;

  @Option(names = "--dry-run", description = "print the estimate and each profile's sizes and caps, run nothing")
  boolean dryRun;

  @Option(names = "--classpath", description = "class path of the child JVMs (default: this JVM's)")
  String classpath;

  /**
   * Above this CPU busy share a profile run with {@code --parallel} is flagged: its variants
   * competed for the CPU (measured on 2026-11-30: on a machine already saturated by other work,
   * five variants at a time raised setup and unary latencies by 5-70% over one at a time).
   */
  static final double CONTENDED_PERCENT = 50;

  private final List<String> contended = java.util.Collections.synchronizedList(new ArrayList<>());
  private final PhaseTimes times = new PhaseTimes();
  private final Map<String, List<String>> outcomes = new java.util.concurrent.ConcurrentSkipListMap<>();
  private final Map<String, String> health = new java.util.concurrent.ConcurrentSkipListMap<>();
  private final Map<String, String> cpuLoad = new java.util.concurrent.ConcurrentSkipListMap<>();

  /** Entry point; exits with 0 on success, 1 when the run failed its checks. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new ScenarioMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    long startNs = System.nanoTime();
    resolveLinks();
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
      RpcStack s = RpcStacks.byName(v.processStack());
      if (s.isAvailable()) {
        runnable.add(v);
      } else {
        skipped.put(v.label(), s.unavailableReason());
        log(startNs, v.label() + " skipped: " + s.unavailableReason());
      }
    }
    List<String> labels = runnable.stream().map(Variant::label).toList();
    double estimate = estimateSeconds(runnable);
    printLinks(startNs);
    log(startNs, String.format(Locale.ROOT, "%d profiles x %d variants x %d repetitions of %s: about %.0f min",
        runLinks.size(), runnable.size(), reps, scenarios, Math.ceil(estimate / 60)));
    if (dryRun) {
      for (String profile : runLinks.keySet()) {
        LinkSpec link = specOf(profile);
        log(startNs, profile + ": " + configFor(link));
      }
      return 0;
    }
    int runsTotal = runLinks.size() * runnable.size();
    int runsDone = 0;
    if (parallel < 1) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--parallel must be at least 1, was " + parallel);
    }
    Aggregator agg = new Aggregator();
    Map<String, Object> profilesJson = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    for (String profile : runLinks.keySet()) {
      LinkSpec link = specOf(profile);
      Map<String, String> ccInForce = new java.util.concurrent.ConcurrentSkipListMap<>();
      LinkProfile linkProfile = runLinks.get(profile);
      profilesJson.put(profile, Map.of("downMbps", link.downBitsPerSecond() / 1e6, "upMbps",
          link.upBitsPerSecond() / 1e6, "rttMs", link.rttMillis(), "loss", link.loss(), "jitterMs",
          link.jitterMillis(), "trace", link.trace(), "kernelCongestionControlInForce", ccInForce,
          "spec", linkProfile == null ? "unshaped" : CustomLinks.format(linkProfile)));
      ClientConfig config = configFor(link);
      List<Variant> toRun = new ArrayList<>();
      List<String> stacksRun = new ArrayList<>();
      for (Variant v : runnable) {
        String tag = profile + "-" + v.label().replace('/', '-');
        if (!link.shaped() && v.kernelCc() != null && stacksRun.contains(v.stack())) {
          log(startNs, tag + " skipped: loopback cannot choose the kernel's congestion control");
          continue;
        }
        if (scenariosOf(v).isEmpty()) {
          log(startNs, tag + " skipped: " + v.label() + " runs only " + Variant.AUTO_SCENARIOS);
          continue;
        }
        stacksRun.add(v.stack());
        toRun.add(v);
      }
      CpuLoad cpu = CpuLoad.start();
      ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, parallel));
      Map<Variant, Future<RawResults>> results = new LinkedHashMap<>();
      for (Variant v : toRun) {
        int n = ++runsDone;
        results.put(v, pool.submit(() -> timedVariant(profile, link, v, n, runsTotal, dir, cp, tlsDir, config,
            ccInForce, startNs)));
      }
      pool.shutdown();
      RawResults reference = null;
      for (Map.Entry<Variant, Future<RawResults>> e : results.entrySet()) {
        Variant v = e.getKey();
        try {
          RawResults r = e.getValue().get();
          agg.add(link, v.label(), r, reference);
          if (reference == null) {
            reference = r;
          }
        } catch (ExecutionException ex) {
          Throwable c = ex.getCause();
          failures.add(profile + "-" + v.label().replace('/', '-') + ": " + c.getMessage());
          log(startNs, profile + "-" + v.label().replace('/', '-') + " FAILED: " + c);
        }
      }
      String load = cpu.stop();
      cpuLoad.put(profile, load);
      log(startNs, profile + ": " + load + (parallel > 1 ? " (" + parallel + " variants at a time)" : ""));
      if (parallel > 1 && !(cpu.busyPercent() < CONTENDED_PERCENT)) {
        String warning = String.format(Locale.ROOT, "%s: variants ran %d at a time on a CPU %.0f%% busy (limit %.0f%%): "
            + "they competed for the CPU, so this profile's latency figures may be inflated; rerun it with "
            + "--parallel 1 before quoting them", profile, parallel, cpu.busyPercent(), CONTENDED_PERCENT);
        contended.add(warning);
        log(startNs, "WARNING " + warning);
      }
      // Written after every profile, so a run cut short still leaves every finished figure.
      writeOutputs(dir, agg, labels, skipped, profilesJson, startNs);
    }
    agg.violations().addAll(failures);
    writeOutputs(dir, agg, labels, skipped, profilesJson, startNs);
    System.out.println("\nWall time per phase (s; scenarios summed over repetitions, 'other': lab, JVMs, warm-up):\n");
    System.out.println(times.table());
    if (!agg.violations().isEmpty()) {
      System.err.println("FAILED: " + String.join("\n  ", agg.violations()));
      return 1;
    }
    return 0;
  }

  private RawResults timedVariant(String profile, LinkSpec link, Variant v, int n, int total, Path dir, String cp,
      Path tlsDir, ClientConfig config, Map<String, String> ccInForce, long startNs) throws Exception {
    String tag = profile + "-" + v.label().replace('/', '-');
    List<String> own = scenariosOf(v);
    long variantStart = System.nanoTime();
    try {
      Path tls = plaintextTcp && Variant.onKernelTcp(v.stack()) ? null : tlsDir;
      log(startNs, String.format(Locale.ROOT, "run %d/%d: %s, about %.0f s", n, total, tag,
          variantEstimate(link, config, v, own)));
      RawResults r = runVariant(profile, v, tag, dir, cp, tls, config, ccInForce, startNs, own);
      outcomes.put(profile + " " + v.label(), r.outcomes);
      return r;
    } finally {
      times.wall(profile, v.label(), (System.nanoTime() - variantStart) / 1_000_000);
      log(startNs, String.format(Locale.ROOT, "%s took %.0f s (scenarios %.0f s)", tag,
          (System.nanoTime() - variantStart) / 1e9, times.scenarioMillis(profile, v.label()) / 1e3));
    }
  }

  private RawResults runVariant(String profile, Variant v, String tag, Path dir, String cp, Path tls,
      ClientConfig config, Map<String, String> ccInForce, long startNs, List<String> own) throws Exception {
    Lab lab = Labs.open(runLinks.get(profile), seed, v.kernelCc(), dir.resolve("raw").resolve(tag + "-packets.tsv"));
    Path raw;
    try {
      if (v.kernelCc() != null) {
        ccInForce.put(v.label(), lab.tcpCongestionControl());
      }
      log(startNs, tag + " starting (link " + profile + ", seed " + seed + ", kernel TCP congestion control: "
          + lab.tcpCongestionControl() + ", " + (tls == null ? "plaintext" : "TLS") + ")");
      raw = new ProcessPair(lab, cp, dir.resolve("raw")).run(tag, v.processStack(), tls, own, reps, config,
          60L * 60, msg -> log(startNs, tag + ": " + msg), (s, ms) -> times.add(profile, v.label(), s, ms),
          freshClientPerRep(v, own));
    } finally {
      lab.close();
    }
    if (lab.health() != null) {
      health.put(profile + " " + v.label(), lab.health());
      log(startNs, tag + ": " + lab.health());
    }
    RawResults r = RawResults.parse(raw, reps);
    double[] appBytes = r.metrics.get(BulkScenario.NAME + " bytes");
    lab.downloads().forEach((rep, d) -> {
      if (appBytes != null && rep < reps && !Double.isNaN(appBytes[rep])) {
        r.putMetric(rep, BulkScenario.NAME, "steady_goodput_mbps", d.steadyMbps(appBytes[rep]));
        r.putMetric(rep, BulkScenario.NAME, "steady_window_ms", d.windowMs());
      }
    });
    lab.cancelWaste().forEach((rep, bytesPerImage) -> {
      if (rep < reps) {
        r.putMetric(rep, FeedScenario.NAME, "bytes_after_cancel_per_image", bytesPerImage);
      }
    });
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

  /**
   * Fills {@link #runLinks}: the named profiles, then the user's own links; a bad name, spec or
   * file, or two links of one name, is a parameter error naming it.
   */
  private void resolveLinks() {
    List<String> names = profiles != null ? profiles : links.given() ? List.of() : DEFAULT_PROFILES;
    try {
      for (String name : names) {
        runLinks.put(name, name.equals(LinkSpec.LOOPBACK.name()) ? null : LinkProfiles.get(name));
      }
      for (LinkProfile own : links.profiles(seed)) {
        if (runLinks.containsKey(own.name())) {
          throw new IllegalArgumentException("two links are named '" + own.name() + "'; give each link its own "
              + "name=");
        }
        runLinks.put(own.name(), own);
      }
    } catch (IllegalArgumentException | IllegalStateException | java.io.UncheckedIOException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    if (runLinks.isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "no link to run: --profiles is empty");
    }
  }

  /** Prints every link of the run in full (and the ranges of a random one). */
  private void printLinks(long startNs) {
    if (links.random()) {
      log(startNs, "random link ranges: " + RandomLinks.RANGES);
    }
    runLinks.forEach((name, p) -> log(startNs, p == null ? "link " + name + ": unshaped loopback"
        : CustomLinks.describe(p)));
  }

  private LinkSpec specOf(String profile) {
    LinkProfile p = runLinks.get(profile);
    return p == null ? LinkSpec.LOOPBACK : LinkSpec.of(p);
  }

  private ClientConfig configFor(LinkSpec link) {
    int stall = stallSeconds != null ? stallSeconds : Budget.STALL_SECONDS;
    int fallback = fallbackSeconds != null ? fallbackSeconds : Budget.FALLBACK_SECONDS;
    if (smoke) {
      long bulk = bulkBytes != null ? bulkBytes : 128 * 1024;
      return new ClientConfig(unaryCalls != null ? unaryCalls : 5, 32, 1, bulk,
          capSeconds != null ? capSeconds : 20, 1, seed, scaleIdle != null ? scaleIdle : 20,
          Math.min(scaleActive, 4), scaleSeconds != null ? scaleSeconds : 3,
          migrationBytes != null ? migrationBytes : bulk, stall, fallback, link.downBitsPerSecond());
    }
    long bulk = bulkBytes != null ? bulkBytes : Budget.bulkBytes(link);
    return new ClientConfig(unaryCalls != null ? unaryCalls : Budget.UNARY_CALLS, Budget.CONCURRENT_CALLS, 1, bulk,
        capSeconds != null ? capSeconds : Budget.capSeconds(link, bulk), 1, seed,
        scaleIdle != null ? scaleIdle : 500, scaleActive, scaleSeconds != null ? scaleSeconds : 20,
        migrationBytes != null ? migrationBytes : Budget.migrationBytes(bulk), stall, fallback,
        link.downBitsPerSecond());
  }

  /**
   * The scenarios variant {@code v} runs, in order: all asked for, except that {@code auto} runs only
   * its own; {@code setup} first, so that its cold connection is the client process's first contact
   * with the server (no TLS session or 0-RTT ticket from an earlier scenario).
   */
  private List<String> scenariosOf(Variant v) {
    List<String> own = v.stack().equals(dev.tern.bench.stack.AutoStack.NAME)
        ? scenarios.stream().filter(Variant.AUTO_SCENARIOS::contains).toList()
        : scenarios;
    List<String> ordered = new java.util.ArrayList<>(own);
    if (ordered.remove(SetupScenario.NAME)) {
      ordered.add(0, SetupScenario.NAME);
    }
    return List.copyOf(ordered);
  }

  /**
   * Whether every repetition of {@code v} gets a client process of its own: {@code auto} (each
   * fallback must be a first contact) and any variant running {@code setup} (each cold connection
   * must be one).
   */
  private static boolean freshClientPerRep(Variant v, List<String> own) {
    return v.stack().equals(dev.tern.bench.stack.AutoStack.NAME) || own.contains(SetupScenario.NAME);
  }

  private double variantEstimate(LinkSpec link, ClientConfig config, Variant v, List<String> own) {
    double sec = Budget.overheadSeconds(link);
    for (String s : own) {
      sec += reps * Budget.estimateSeconds(link, config, s, v.stack());
    }
    // a client JVM per repetition (auto, setup) costs its start and warm-up each time
    return freshClientPerRep(v, own) ? sec + reps * 3 : sec;
  }

  /** The estimated wall time: per profile, variants in waves of {@code --parallel}, each wave as long as its longest. */
  private double estimateSeconds(List<Variant> runnable) {
    double total = 0;
    for (String profile : runLinks.keySet()) {
      LinkSpec link = specOf(profile);
      ClientConfig config = configFor(link);
      double wave = 0;
      int inWave = 0;
      for (Variant v : runnable) {
        List<String> own = scenariosOf(v);
        if (own.isEmpty()) {
          continue;
        }
        wave = Math.max(wave, variantEstimate(link, config, v, own));
        if (++inWave == parallel) {
          total += wave;
          wave = 0;
          inWave = 0;
        }
      }
      total += wave;
    }
    return total;
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
    json.put("outcomes", outcomes);
    json.put("emulator", health);
    json.put("parallel", parallel);
    json.put("cpu", cpuLoad);
    json.put("cpuContended", contended);
    json.put("phaseSeconds", times.toJson());
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
    contended.forEach(w -> md.append("\n- **CPU contended**: ").append(w));
    outcomes.forEach((run, list) -> list.forEach(o -> md.append("\n- ").append(run).append(" ").append(o)));
    md.append("\n\n### Summary\n\n").append(MarkdownReport.summary(agg.rows(), labels));
    md.append("\n### All figures\n").append(MarkdownReport.tables(agg.rows(), labels));
    md.append("\n### Wall time per phase (s)\n\nScenarios summed over repetitions as the client timed them; "
        + "'other': the lab, JVM starts, warm-up.\n\n").append(times.table());
    health.forEach((run, h) -> md.append("\n- ").append(run).append(": ").append(h));
    cpuLoad.forEach((p, l) -> md.append("\n- ").append(p).append(": ").append(l)
        .append(parallel > 1 ? " (" + parallel + " variants at a time)" : ""));
    md.append('\n');
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
