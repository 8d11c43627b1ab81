package dev.tern.transport.udp.sim;

import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.Mutants;
import dev.tern.netlab.cli.LinkOptions;
import dev.tern.netlab.link.CustomLinks;
import dev.tern.netlab.link.LinkProfile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The simulator's command line: single runs with per-run figures, or a campaign of many seeded
 * runs across profiles. Every failure prints the command that reproduces it.
 */
@Command(name = "sim", mixinStandardHelpOptions = true,
    description = "Runs Tern's UDP protocol core in the deterministic simulator.")
public final class SimRunner implements Callable<Integer> {
  @Option(names = "--profile", split = ",",
      description = "Link profile(s); 'all' = every netlab profile plus the harsh ones. With "
          + "--link, --link-file or --random-link, those links run instead unless --profile is given too.")
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

  @Option(names = "--mutant", description = "A deliberate recovery defect, to check that the "
      + "campaign notices it: NONE, PTO_4X, NO_FAST_RETRANSMIT, NO_PACING.")
  String mutant = "NONE";

  @Option(names = "--zero-rtt", description = "The 0-RTT campaign: per run a first connection "
      + "that earns a ticket and a resumption with its call in 0-RTT, against the same server "
      + "instance (even seeds) or a second one sharing the tickets (odd seeds); prints how many "
      + "resumptions had their early data accepted (docs/udp-simulator.md, \"0-RTT\").")
  boolean zeroRtt;

  @Option(names = "--threads", description = "Worker threads for campaigns.")
  int threads = Runtime.getRuntime().availableProcessors();

  @Mixin
  LinkOptions links = new LinkOptions();

  @Spec
  CommandSpec spec;

  /** Each link of the user's own, as the spec that rebuilds it, for the reproduce lines. */
  private final Map<String, String> customSpecs = new HashMap<>();

  /** Entry point. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new SimRunner()).execute(args));
  }

  private List<String> resolvedProfiles(boolean profilesGiven) {
    List<String> out = new ArrayList<>();
    if (links.given()) {
      for (LinkProfile p : links.profiles(seed)) {
        SimProfiles.register(p);
        customSpecs.put(p.name(), CustomLinks.format(p));
        out.add(p.name());
        System.out.println("link " + p.name() + ": " + CustomLinks.describe(p));
      }
      if (!profilesGiven) {
        return out;
      }
    }
    if (profiles.size() == 1 && profiles.get(0).equals("all")) {
      out.addAll(SimProfiles.names());
      out.addAll(Adversaries.NAMES); // docs/udp-simulator.md, "Adversaries"
    } else if (profiles.size() == 1 && profiles.get(0).equals("adversaries")) {
      out.addAll(Adversaries.NAMES);
    } else {
      out.addAll(profiles);
    }
    return out;
  }

  @Override
  public Integer call() throws Exception {
    if (zeroRtt) {
      int failed = 0;
      for (String p : profiles) {
        ZeroRttCampaign.Summary z = ZeroRttCampaign.campaign(p, seed, runs);
        System.out.print(p + ": " + z);
        boolean twice = z.failures().stream().anyMatch(r -> r.requestsRead() > 1);
        if (z.acceptedShare() < 0.97 || twice) {
          failed++;
        }
      }
      return failed == 0 ? 0 : 1;
    }
    ConnectionConfig config = ConnectionConfig.builder()
        .congestionControl(CongestionControl.valueOf(cc.toUpperCase(Locale.ROOT)))
        .handshakeCopy(!noHandshakeCopy).build();
    config = Mutants.with(config, mutant);
    List<String> ps;
    try {
      ps = resolvedProfiles(spec.commandLine().getParseResult().hasMatchedOption("--profile"));
    } catch (IllegalArgumentException e) {
      System.err.println("sim: " + e.getMessage());
      return 2;
    }
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
          System.out.println("  reproduce: " + reproduceHere(r));
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
      System.out.println("  reproduce: " + reproduceHere(r));
    }
    List<RunResult> viol = s.boundViolations();
    System.out.println(s.verdictLine() + " threads=" + threads);
    for (RunResult r : viol) {
      System.out.println("SLOW " + r.line());
      System.out.println("  reproduce: " + reproduceHere(r));
    }
    for (RunResult r : s.burstViolations()) {
      System.out.println("BURST " + r.line());
      System.out.println("  reproduce: " + reproduceHere(r));
    }
    return s.passes() ? 0 : 1;
  }

  private static String calls(RunResult r) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < r.callLatencyNs.length; i++) {
      sb.append(i == 0 ? "" : ",").append(String.format("%.0f", r.callLatencyNs[i] / 1e6));
    }
    return sb.append("]ms").toString();
  }

  /** The command that repeats run {@code r} on a built-in profile. */
  static String reproduce(RunResult r) {
    return reproduce(r, "--profile " + r.profile);
  }

  private String reproduceHere(RunResult r) {
    String custom = customSpecs.get(r.profile);
    return reproduce(r, custom == null ? "--profile " + r.profile : "--link '" + custom + "'");
  }

  private static String reproduce(RunResult r, String link) {
    return "rpc-transport-udp/sim.sh " + link + " --scenario "
        + r.scenario.name().toLowerCase(Locale.ROOT) + " --seed " + r.seed;
  }
}
