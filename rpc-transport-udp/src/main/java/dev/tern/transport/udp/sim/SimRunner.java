package dev.tern.transport.udp.sim;

import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.connection.ConnectionConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The simulator's command line: single runs with per-run figures, or a campaign of many seeded
 * runs across profiles. Every failure prints the command that reproduces it.
 */
@Command(name = "sim", mixinStandardHelpOptions = true,
    description = "Runs Tern's UDP protocol core in the deterministic simulator.")
public final class SimRunner implements Callable<Integer> {
  @Option(names = "--profile", split = ",",
      description = "Link profile(s); 'all' = every netlab profile plus the harsh ones.")
  List<String> profiles = new ArrayList<>(List.of("mobile"));

  @Option(names = "--scenario", description = "unary, concurrent, feed, bulk, mixed; default: "
      + "unary for single runs, a per-seed mix for campaigns.")
  String scenario;

  @Option(names = "--runs", description = "Number of runs (seeds seed..seed+runs-1).")
  int runs = 1;

  @Option(names = "--seed", description = "First seed.")
  long seed = 1;

  @Option(names = "--cc", description = "Congestion control: NEW_RENO, CUBIC, BBR.")
  String cc = "BBR";

  @Option(names = "--rebind-ms", description = "Change the client's address at this time (ms).")
  long rebindMs = -1;

  @Option(names = "--no-handshake-copy", description = "Send the first handshake datagram once "
      + "(docs/protocol.md §4.1), for comparison.")
  boolean noHandshakeCopy;

  @Option(names = "--campaign", description = "Campaign mode: a summary table instead of a line "
      + "per run.")
  boolean campaign;

  @Option(names = "--every-run", description = "Campaign mode: also print every run's line "
      + "(sorted by seed), to compare the verdicts of two campaigns.")
  boolean everyRun;

  @Option(names = "--threads", description = "Worker threads for campaigns.")
  int threads = Runtime.getRuntime().availableProcessors();

  /** Entry point. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new SimRunner()).execute(args));
  }

  private List<String> resolvedProfiles() {
    if (profiles.size() == 1 && profiles.get(0).equals("all")) {
      return SimProfiles.names();
    }
    return profiles;
  }

  @Override
  public Integer call() throws Exception {
    ConnectionConfig config = ConnectionConfig.builder()
        .congestionControl(CongestionControl.valueOf(cc.toUpperCase(Locale.ROOT)))
        .handshakeCopy(!noHandshakeCopy).build();
    List<String> ps = resolvedProfiles();
    Scenario fixed = scenario == null ? (campaign ? null : Scenario.UNARY)
        : Scenario.of(scenario);
    if (!campaign) {
      int failed = 0;
      for (int i = 0; i < runs; i++) {
        String p = ps.get(i % ps.size());
        Scenario sc = fixed != null ? fixed : Campaign.scenarioFor(seed + i);
        RunResult r = SimRun.run(p, sc, seed + i, config,
            rebindMs < 0 ? -1 : rebindMs * 1_000_000L);
        System.out.println(r.line() + (r.callLatencyNs.length > 1 ? " calls=" + calls(r) : ""));
        if (!r.ok()) {
          failed++;
          System.out.println("  reproduce: " + reproduce(r));
        }
      }
      return failed == 0 ? 0 : 1;
    }
    Campaign.Summary s = Campaign.run(ps, fixed, runs, seed, threads, config, null);
    if (everyRun) {
      List<RunResult> all = new java.util.ArrayList<>(s.results);
      all.sort(java.util.Comparator.comparingLong(r -> r.seed));
      for (RunResult r : all) {
        System.out.println("RUN " + r.line());
      }
    }
    System.out.print(s.table());
    for (RunResult r : s.failures()) {
      System.out.println("FAIL " + r.line());
      System.out.println("  reproduce: " + reproduce(r));
    }
    List<RunResult> over = s.overTimeBound();
    List<RunResult> viol = s.boundViolations();
    System.out.printf("runs=%d failures=%d bound-exempt=%s over-%.0fx-ideal=%d (exempt %d, "
        + "violations %d) wall=%.1fs threads=%d%n", s.results.size(), s.failures().size(),
        s.exemptions(), Campaign.TIME_BOUND_RATIO, over.size(), over.size() - viol.size(),
        viol.size(), s.wallNs / 1e9, threads);
    for (RunResult r : viol) {
      System.out.println("SLOW " + r.line());
      System.out.println("  reproduce: " + reproduce(r));
    }
    return s.failures().isEmpty() && viol.isEmpty() ? 0 : 1;
  }

  private static String calls(RunResult r) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < r.callLatencyNs.length; i++) {
      sb.append(i == 0 ? "" : ",").append(String.format("%.0f", r.callLatencyNs[i] / 1e6));
    }
    return sb.append("]ms").toString();
  }

  static String reproduce(RunResult r) {
    return "rpc-transport-udp/sim.sh --profile " + r.profile + " --scenario "
        + r.scenario.name().toLowerCase(Locale.ROOT) + " --seed " + r.seed;
  }
}
