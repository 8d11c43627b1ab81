package dev.tern.bench.soak;

import dev.tern.bench.report.Json;
import dev.tern.bench.report.MarkdownReport;
import dev.tern.bench.service.BenchService;
import dev.tern.bench.stack.TlsMaterial;
import dev.tern.conformance.DatagramRelay;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportProvider;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The soak run: one Tern server listening on {@code tcp}, {@code quic} and {@code udp} on
 * loopback, a channel per transport (the datagram ones through a relay that can drop everything),
 * a steady mixed load on each ({@link TransportLoad}) for a bounded time while faults are injected
 * in turn ({@link FaultInjector}), and every {@code --sample-seconds} a sample of the process
 * (heap after a full GC, threads, descriptors, RSS) and of each transport (calls by status,
 * unary latency, calls and connections open, from the {@link TernMetrics} the server and the
 * channels count into). Writes {@code soak.json}, {@code soak.md} and {@code soak.svg} into the
 * output directory and exits non-zero if the heap after GC, the threads or the descriptors grew
 * over the second half beyond {@link SoakSummary}'s tolerances, or if a call of the steady load
 * failed outside every fault window.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
    description = "Runs every transport under a steady load and scheduled faults, sampling the process's resources.")
public final class SoakMain implements Callable<Integer> {
  /** The transports a run uses, in order; those not available here are skipped and said so. */
  static final List<String> TRANSPORTS = List.of("tcp", "quic", "udp");
  /** Timers of the load and the faults (chat watchdogs, delayed cancels). */
  static final ScheduledExecutorService TIMER = Executors.newScheduledThreadPool(1, daemon("soak-timer"));

  @Option(names = "--minutes", defaultValue = "30", description = "length of the run (default: ${DEFAULT-VALUE})")
  double minutes;

  @Option(names = "--smoke", description = "a run of about 60 s with a faster schedule: checks the pipeline")
  boolean smoke;

  @Option(names = "--seconds", description = "length of the run in seconds, overriding --minutes and --smoke's")
  Double seconds;

  @Option(names = "--sample-seconds", description = "time between samples (default 10; --smoke: 5)")
  Double sampleSeconds;

  @Option(names = "--fault-seconds", description = "length of each fault (default 5; --smoke: 3)")
  Double faultSeconds;

  @Option(names = "--gap-seconds", description = "time without a fault before each fault (default 20; --smoke: 6)")
  Double gapSeconds;

  @Option(names = "--rate", defaultValue = "200",
      description = "unary calls per second per transport (default: ${DEFAULT-VALUE})")
  double rate;

  @Option(names = "--seed", defaultValue = "1", description = "seeds the random datagrams (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--out", description = "output directory (default: target/soak-<time>)")
  Path out;

  /** Entry point; exits with 0 if the run passed its checks, 1 if not. */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs with {@code args} and returns the exit status. */
  static int run(String... args) {
    return new CommandLine(new SoakMain()).execute(args);
  }

  @Override
  public Integer call() throws Exception {
    double runSeconds = seconds != null ? seconds : smoke ? 60 : minutes * 60;
    double sampleEvery = sampleSeconds != null ? sampleSeconds : smoke ? 5 : 10;
    double faultLength = faultSeconds != null ? faultSeconds : smoke ? 3 : 5;
    double gap = gapSeconds != null ? gapSeconds : smoke ? 6 : 20;
    if (runSeconds <= 0 || sampleEvery <= 0 || faultLength <= 0 || gap <= 0 || rate <= 0) {
      throw new CommandLine.ParameterException(new CommandLine(this), "lengths and the rate must be positive");
    }
    Path dir = out != null ? out : Path.of("target", "soak-" + Instant.now().toString().replace(':', '-'));
    Files.createDirectories(dir);
    String started = Instant.now().toString();
    String loadAtStart = Probe.loadAverage();
    long startNs = System.nanoTime();
    log(startNs, String.format(Locale.ROOT, "soak for %.0f s: samples every %.0f s, faults of %.1f s after %.1f s "
        + "each, %.0f unary calls/s per transport; load average %s", runSeconds, sampleEvery, faultLength, gap, rate,
        loadAtStart));

    List<String> transports = new ArrayList<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    for (String t : TRANSPORTS) {
      TransportProvider p = provider(t);
      if (p == null) {
        skipped.put(t, "not on the class path");
      } else if (!p.isAvailable()) {
        skipped.put(t, p.unavailableReason());
      } else {
        transports.add(t);
      }
    }
    skipped.forEach((t, why) -> log(startNs, t + " skipped: " + why));
    List<String> otherViolations = new ArrayList<>();
    if (transports.isEmpty()) {
      otherViolations.add("no transport is available");
    }

    TlsMaterial tls = TlsMaterial.generate();
    byte[] udpKey = UdpTransportOptions.newServerKey();
    TernMetrics metrics = TernMetrics.create();
    ExecutorService serverPool = Executors.newFixedThreadPool(4, daemon("soak-server"));
    ExecutorService channelPool = Executors.newFixedThreadPool(4, daemon("soak-channel"));
    InetAddress loopback = InetAddress.getLoopbackAddress();
    TernServerBuilder sb = TernServerBuilder.create()
        .addService(new BenchService().definition())
        .addService(SoakChat.definition())
        .tls(TlsSettings.forServer(tls.certificatePem(), tls.privateKeyPem()))
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpKey)
        .executor(serverPool)
        .metrics(metrics, "soak");
    for (String t : transports) {
      sb.listen(t, new InetSocketAddress(loopback, 0));
    }
    Server server = sb.build().start();
    List<? extends SocketAddress> bound = server.getListenSockets();
    Map<String, InetSocketAddress> ports = new LinkedHashMap<>();
    for (int i = 0; i < transports.size(); i++) {
      ports.put(transports.get(i), (InetSocketAddress) bound.get(i));
    }
    log(startNs, "server listening: " + ports);

    List<DatagramRelay> relays = new ArrayList<>();
    List<InetSocketAddress> datagramPorts = new ArrayList<>();
    Map<String, ManagedChannel> channels = new LinkedHashMap<>();
    for (String t : transports) {
      InetSocketAddress target = ports.get(t);
      int port = target.getPort();
      if (!"tcp".equals(t)) {
        DatagramRelay relay = new DatagramRelay(new InetSocketAddress(loopback, port));
        relays.add(relay);
        datagramPorts.add(target);
        port = relay.port();
      }
      TernChannelBuilder cb = TernChannelBuilder.forAddress(loopback.getHostAddress(), port)
          .transports(t)
          .tls(TlsSettings.forClient(tls.certificatePem()).withServerNameOverride(TlsMaterial.SERVER_NAME))
          .executor(channelPool)
          .metrics(metrics, "soak-" + t);
      if ("udp".equals(t)) {
        cb.transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(udpKey));
      }
      channels.put(t, cb.build());
    }
    // The run's clock starts once everything is set up (a certificate, a native library and a
    // cold JIT can take seconds on a busy machine), so the schedule and the samples cover the load.
    FaultLog faults = new FaultLog(System.nanoTime());
    List<TransportLoad> loads = new ArrayList<>();
    channels.forEach((t, ch) -> loads.add(new TransportLoad(t, ch, faults)));
    log(startNs, "run clock started");

    long runNs = (long) (runSeconds * 1e9);
    List<FaultInjector.Planned> plan = FaultInjector.plan(runNs, (long) (gap * 1e9), (long) (faultLength * 1e9));
    FaultInjector injector = new FaultInjector(faults, loads, relays, datagramPorts, plan, seed);
    Thread faultThread = new Thread(injector, "soak-faults");
    faultThread.setDaemon(true);

    ScheduledExecutorService ticks = Executors.newScheduledThreadPool(2, daemon("soak-load"));
    long unaryPeriodNs = (long) (1e9 / rate);
    for (TransportLoad l : loads) {
      ticks.scheduleAtFixedRate(l::unary, 0, unaryPeriodNs, TimeUnit.NANOSECONDS);
      ticks.scheduleAtFixedRate(l::download, 0, TransportLoad.DOWNLOAD_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
      ticks.scheduleAtFixedRate(l::chatTick, 0, TransportLoad.CHAT_MESSAGE_MILLIS, TimeUnit.MILLISECONDS);
    }
    faultThread.start();

    List<Sample> samples = new ArrayList<>();
    Map<String, long[]> lastClient = new LinkedHashMap<>();
    Map<String, long[]> lastServer = new LinkedHashMap<>();
    Map<String, Map<String, Long>> lastRefused = new LinkedHashMap<>();
    Map<String, long[]> lastLoad = new LinkedHashMap<>();
    for (TransportLoad l : loads) {
      lastClient.put(l.transport, clientCodes(metrics, l.transport));
      lastServer.put(l.transport, codes(metrics.transport(TernMetrics.Side.SERVER, "soak", l.transport)));
      lastRefused.put(l.transport, metrics.transport(TernMetrics.Side.SERVER, "soak", l.transport).refusals());
      lastLoad.put(l.transport, new long[] {0, 0});
    }
    long sampleNs = (long) (sampleEvery * 1e9);
    long prev = 0;
    for (long at = sampleNs; at <= runNs + 1_000_000L; at += sampleNs) {
      long wait = at - faults.now();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      long now = faults.now();
      Sample s = sample(metrics, loads, faults, prev, now, lastClient, lastServer, lastRefused, lastLoad);
      prev = now;
      samples.add(s);
      log(startNs, line(s));
    }

    injector.stop();
    faultThread.join(30_000);
    ticks.shutdown();
    ticks.awaitTermination(10, TimeUnit.SECONDS);
    for (TransportLoad l : loads) {
      l.stop();
    }
    long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(TransportLoad.CHAT_END_MILLIS / 1000 + 5);
    for (TransportLoad l : loads) {
      while (!l.idle() && System.nanoTime() < drainUntil) {
        Thread.sleep(50);
      }
      if (!l.idle()) {
        otherViolations.add(l.transport + ": calls of the steady load still in flight "
            + (TransportLoad.CHAT_END_MILLIS / 1000 + 5) + " s after the load stopped");
      }
    }
    String loadAtEnd = Probe.loadAverage();
    Map<String, Map<String, Map<String, Long>>> failureCounts = faults.failureCounts();
    List<FaultLog.Failure> failureDetails = faults.details();
    List<FaultLog.Window> windows = faults.windows();
    Map<String, Object> loadCounts = new LinkedHashMap<>();
    for (TransportLoad l : loads) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("unaryOk", l.unaryOk.get());
      m.put("downloadsOk", l.downloadsOk.get());
      m.put("chatsOk", l.chatsOk.get());
      m.put("chatEchoes", l.chatMessages.get());
      m.put("failed", l.failed.get());
      m.put("skipped", l.skipped.get());
      loadCounts.put(l.transport, m);
    }
    for (TransportLoad l : loads) {
      l.channel.shutdownNow();
    }
    server.shutdownNow();
    for (TransportLoad l : loads) {
      l.channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    server.awaitTermination(10, TimeUnit.SECONDS);
    for (DatagramRelay r : relays) {
      r.close();
    }
    serverPool.shutdownNow();
    channelPool.shutdownNow();

    SoakSummary summary = new SoakSummary(samples, runSeconds, transports, failureCounts, otherViolations);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("date", started);
    json.put("command", String.join(" ", ProcessHandle.current().info().arguments().map(List::of).orElse(List.of())));
    json.put("smoke", smoke);
    json.put("runSeconds", runSeconds);
    json.put("sampleSeconds", sampleEvery);
    json.put("faultSeconds", faultLength);
    json.put("gapSeconds", gap);
    json.put("graceSeconds", FaultLog.GRACE_NANOS / 1e9);
    Map<String, Object> load = new LinkedHashMap<>();
    load.put("unaryPerSecond", rate);
    load.put("unaryBytes", TransportLoad.UNARY_BYTES);
    load.put("downloadBytes", TransportLoad.DOWNLOAD_BYTES);
    load.put("downloadEverySeconds", TransportLoad.DOWNLOAD_PERIOD_MILLIS / 1000.0);
    load.put("chatMessageEverySeconds", TransportLoad.CHAT_MESSAGE_MILLIS / 1000.0);
    load.put("chatReplacedEverySeconds", TransportLoad.CHAT_SECONDS);
    load.put("maxUnaryInFlight", TransportLoad.MAX_UNARY_IN_FLIGHT);
    load.put("maxDownloadsInFlight", TransportLoad.MAX_DOWNLOADS_IN_FLIGHT);
    json.put("load", load);
    json.put("transports", transports);
    json.put("skipped", skipped);
    Map<String, Object> machine = new LinkedHashMap<>();
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    machine.put("maxHeapMiB", Runtime.getRuntime().maxMemory() / (1024 * 1024));
    machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    machine.put("loadAverageAtStart", loadAtStart);
    machine.put("loadAverageAtEnd", loadAtEnd);
    json.put("machine", machine);
    List<Object> faultJson = new ArrayList<>();
    for (FaultLog.Window w : windows) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("fault", w.fault.label());
      m.put("startSeconds", w.startNanos / 1e9);
      m.put("endSeconds", w.endNanos == Long.MAX_VALUE ? null : w.endNanos / 1e9);
      m.put("detail", new TreeMap<>(w.detail));
      faultJson.add(m);
    }
    json.put("faults", faultJson);
    json.put("loadCalls", loadCounts);
    List<Object> sampleJson = new ArrayList<>();
    for (Sample s : samples) {
      sampleJson.add(s.toJson());
    }
    json.put("samples", sampleJson);
    json.put("summary", summary.json);
    List<Object> failedJson = new ArrayList<>();
    for (FaultLog.Failure f : failureDetails) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("transport", f.transport());
      m.put("kind", f.kind());
      m.put("startSeconds", f.startNanos() / 1e9);
      m.put("endSeconds", f.endNanos() / 1e9);
      m.put("code", f.code());
      m.put("description", f.description());
      m.put("window", f.window());
      failedJson.add(m);
    }
    json.put("failedCalls", failedJson);
    json.put("violations", summary.violations);
    json.put("passed", summary.violations.isEmpty());
    Files.writeString(dir.resolve("soak.json"), Json.write(json), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("soak.md"), SoakReport.markdown(json, samples, summary, transports, windows),
        StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("soak.svg"), SoakReport.svg(samples, transports, windows, runSeconds),
        StandardCharsets.UTF_8);
    log(startNs, "wrote " + dir.resolve("soak.json") + ", soak.md, soak.svg; load average " + loadAtEnd);
    if (summary.violations.isEmpty()) {
      log(startNs, "passed");
      return 0;
    }
    for (String v : summary.violations) {
      log(startNs, "FAILED: " + v);
    }
    return 1;
  }

  private static Sample sample(TernMetrics metrics, List<TransportLoad> loads, FaultLog faults, long fromNs,
      long toNs, Map<String, long[]> lastClient, Map<String, long[]> lastServer,
      Map<String, Map<String, Long>> lastRefused, Map<String, long[]> lastLoad) {
    Map<String, Sample.PerTransport> per = new LinkedHashMap<>();
    for (TransportLoad l : loads) {
      String t = l.transport;
      long[] client = clientCodes(metrics, t);
      TransportMetrics serverMetrics = metrics.transport(TernMetrics.Side.SERVER, "soak", t);
      TransportMetrics clientMetrics = metrics.transport(TernMetrics.Side.CLIENT, "soak-" + t, t);
      long[] server = codes(serverMetrics);
      Map<String, Long> refused = serverMetrics.refusals();
      long[] was = lastClient.put(t, client);
      long[] serverWas = lastServer.put(t, server);
      Map<String, Long> refusedWas = lastRefused.put(t, refused);
      Map<String, Long> failed = new TreeMap<>();
      Map<String, Long> serverFailed = new TreeMap<>();
      for (Status.Code c : Status.Code.values()) {
        if (c == Status.Code.OK) {
          continue;
        }
        long d = client[c.ordinal()] - was[c.ordinal()];
        if (d != 0) {
          failed.put(c.name(), d);
        }
        long ds = server[c.ordinal()] - serverWas[c.ordinal()];
        if (ds != 0) {
          serverFailed.put(c.name(), ds);
        }
      }
      Map<String, Long> refusedDelta = new TreeMap<>();
      refused.forEach((k, v) -> {
        long d = v - refusedWas.getOrDefault(k, 0L);
        if (d != 0) {
          refusedDelta.put(k, d);
        }
      });
      Histogram h = l.takeUnaryLatencies();
      long n = h.getTotalCount();
      long[] loadWas = lastLoad.get(t);
      long failedNow = l.failed.get();
      long skippedNow = l.skipped.get();
      lastLoad.put(t, new long[] {failedNow, skippedNow});
      per.put(t, new Sample.PerTransport(client[Status.Code.OK.ordinal()] - was[Status.Code.OK.ordinal()], failed,
          serverFailed, refusedDelta, n, n == 0 ? Double.NaN : h.getValueAtPercentile(50) / 1000.0,
          n == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1000.0, clientMetrics.activeCalls(),
          serverMetrics.activeCalls(), clientMetrics.connections(), serverMetrics.connections(),
          failedNow - loadWas[0], skippedNow - loadWas[1]));
    }
    return new Sample(toNs / 1e9, Probe.heapAfterGcMiB(), Probe.threads(), Probe.openFds(), Probe.rssMiB(),
        faults.faultsDuring(fromNs, toNs), per);
  }

  /** A channel's calls finished so far by status code: its transport's and its {@code none} transport's. */
  private static long[] clientCodes(TernMetrics metrics, String transport) {
    long[] a = codes(metrics.transport(TernMetrics.Side.CLIENT, "soak-" + transport, transport));
    long[] b = codes(metrics.transport(TernMetrics.Side.CLIENT, "soak-" + transport, "none"));
    for (int i = 0; i < a.length; i++) {
      a[i] += b[i];
    }
    return a;
  }

  private static long[] codes(TransportMetrics m) {
    Status.Code[] all = Status.Code.values();
    long[] out = new long[all.length];
    for (Status.Code c : all) {
      out[c.ordinal()] = m.callsFinished(c);
    }
    return out;
  }

  private static String line(Sample s) {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "heap %.1f MiB, %d threads, %d fds, rss %.0f MiB",
        s.heapAfterGcMiB(), s.threads(), s.fds(), s.rssMiB()));
    s.transports().forEach((t, p) -> sb.append(String.format(Locale.ROOT, "; %s %d ok %d failed p99 %s ms", t, p.ok(),
        p.failedTotal(), MarkdownReport.num(p.unaryP99Ms()))));
    if (!s.fault().isEmpty()) {
      sb.append(" [").append(s.fault()).append(']');
    }
    return sb.toString();
  }

  private static TransportProvider provider(String name) {
    for (TransportProvider p : ServiceLoader.load(TransportProvider.class)) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  /** Daemon threads named {@code name-1}, {@code name-2}, ... */
  static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void log(long startNs, String msg) {
    long s = (System.nanoTime() - startNs) / 1_000_000_000L;
    System.out.printf(Locale.ROOT, "[%02d:%02d] %s%n", s / 60, s % 60, msg);
    System.out.flush();
  }
}
