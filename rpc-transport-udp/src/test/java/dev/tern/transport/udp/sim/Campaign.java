package dev.tern.transport.udp.sim;

import dev.tern.transport.udp.connection.ConnectionConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Many seeded runs across profiles, in parallel. Run {@code i} uses seed {@code baseSeed + i},
 * profile {@code profiles[i % n]} and, unless fixed, a scenario chosen from the seed, so any run
 * is reproduced by its (profile, scenario, seed).
 */
public final class Campaign {
  /** The scenarios a campaign mixes when none is fixed. */
  static final Scenario[] MIX = {Scenario.UNARY, Scenario.CONCURRENT, Scenario.MIXED,
      Scenario.FEED};

  /** How long a run may take against its ideal. */
  public static final double TIME_BOUND_RATIO = 3.0;
  /**
   * The share of declared losses that may be declared later than RFC 9002 §6.1 makes them due
   * ({@code LossDetector}): a few are, when a later RTT sample shortens the time threshold
   * between ACKs (about 1.6% in the build's slice); a sender without early loss detection
   * declares most of them late.
   */
  public static final double MAX_LATE_DECLARATION_SHARE = 0.10;

  private Campaign() {}

  /** The scenario of run {@code seed} when none is fixed. */
  static Scenario scenarioFor(long seed) {
    return MIX[(int) Math.floorMod(seed * 0x9E3779B97F4A7C15L >>> 40, (long) MIX.length)];
  }

  /** Aggregated figures of a campaign. */
  public static final class Summary {
    /** Every result, in run order. */
    public final List<RunResult> results = new ArrayList<>();
    /** Wall-clock time, ns. */
    public long wallNs;

    /** Runs that failed (wrong or missing bytes, errors, state left behind). */
    public List<RunResult> failures() {
      List<RunResult> f = new ArrayList<>();
      for (RunResult r : results) {
        if (!r.ok()) {
          f.add(r);
        }
      }
      return f;
    }

    /** Correct runs slower than {@link #TIME_BOUND_RATIO} x ideal. */
    public List<RunResult> overTimeBound() {
      List<RunResult> f = new ArrayList<>();
      for (RunResult r : results) {
        if (r.ok() && !r.withinTimeBound(TIME_BOUND_RATIO)) {
          f.add(r);
        }
      }
      return f;
    }

    /**
     * Correct runs over their own bound ({@link RunResult#boundNs}: 3x the ideal, or what an
     * exemption allows; no run is without one): each is a protocol deficiency.
     */
    public List<RunResult> boundViolations() {
      List<RunResult> f = new ArrayList<>();
      for (RunResult r : results) {
        if (r.ok() && !r.withinBound()) {
          f.add(r);
        }
      }
      return f;
    }

    /** Runs whose sender released more than the initial window at once towards a bottleneck. */
    public List<RunResult> burstViolations() {
      List<RunResult> f = new ArrayList<>();
      for (RunResult r : results) {
        if (r.burstOverLimit()) {
          f.add(r);
        }
      }
      return f;
    }

    /** Declared losses (both ends, every run) declared later than RFC 9002 §6.1 makes them due. */
    public double lateDeclarationShare() {
      long lost = 0;
      long late = 0;
      for (RunResult r : results) {
        lost += r.lostPackets;
        late += r.lateLossDeclarations;
      }
      return lost == 0 ? 0 : (double) late / lost;
    }

    /**
     * The campaign's verdict: every run correct and within its own bound, no burst over the
     * initial window towards a bottleneck, and losses declared on time.
     */
    public boolean passes() {
      return failures().isEmpty() && boundViolations().isEmpty() && burstViolations().isEmpty()
          && lateDeclarationShare() <= MAX_LATE_DECLARATION_SHARE;
    }

    /** Correct runs held to 3x their ideal (no exemption). */
    public int heldToIdealBound() {
      int n = 0;
      for (RunResult r : results) {
        n += r.ok() && r.boundExemption() == null ? 1 : 0;
      }
      return n;
    }

    /** The correct run with the largest completion over ideal (null if none has a ratio). */
    public RunResult worstRatio() {
      RunResult worst = null;
      for (RunResult r : results) {
        if (r.ok() && !Double.isNaN(r.ratio()) && (worst == null || r.ratio() > worst.ratio())) {
          worst = r;
        }
      }
      return worst;
    }

    /** The correct run closest to (or furthest past) its own bound. */
    public RunResult worstBoundRatio() {
      RunResult worst = null;
      for (RunResult r : results) {
        if (r.ok() && (worst == null || r.boundRatio() > worst.boundRatio())) {
          worst = r;
        }
      }
      return worst;
    }

    /** One line: runs, failures, held to 3x, exempt by reason, violations, worst ratios. */
    public String verdictLine() {
      RunResult w = worstRatio();
      RunResult b = worstBoundRatio();
      return String.format("runs=%d failures=%d held-to-%.0fx=%d exempt=%s over-%.0fx-ideal=%d "
          + "violations=%d burst-violations=%d late-declared=%.1f%% worst-ratio=%.2f (%s seed %d) worst-of-own-bound=%.2f (%s seed %d) "
          + "wall=%.1fs", results.size(), failures().size(), TIME_BOUND_RATIO,
          heldToIdealBound(), exemptions(), TIME_BOUND_RATIO, overTimeBound().size(),
          boundViolations().size(), burstViolations().size(), 100 * lateDeclarationShare(),
          w == null ? Double.NaN : w.ratio(),
          w == null ? "-" : w.profile, w == null ? -1 : w.seed,
          b == null ? Double.NaN : b.boundRatio(), b == null ? "-" : b.profile,
          b == null ? -1 : b.seed, wallNs / 1e9);
    }

    /** Runs the bound is not asserted on, by reason. */
    public Map<String, Integer> exemptions() {
      Map<String, Integer> m = new TreeMap<>();
      for (RunResult r : results) {
        if (r.ok() && r.boundExemption() != null) {
          m.merge(r.boundExemption(), 1, Integer::sum);
        }
      }
      return m;
    }

    /** A table: per profile, runs, failures, over-bound runs, ratio p50/p99, completion p50/p99. */
    public String table() {
      Map<String, List<RunResult>> byProfile = new TreeMap<>();
      for (RunResult r : results) {
        byProfile.computeIfAbsent(r.profile, k -> new ArrayList<>()).add(r);
      }
      StringBuilder sb = new StringBuilder(String.format("%-14s %6s %5s %6s %6s %6s %9s %9s %11s %11s%n",
          "profile", "runs", "fail", "exempt", ">3x", "viol", "ratio-p50", "ratio-p99", "done-p50ms", "done-p99ms"));
      for (Map.Entry<String, List<RunResult>> e : byProfile.entrySet()) {
        sb.append(row(e.getKey(), e.getValue()));
      }
      sb.append(row("ALL", results));
      return sb.toString();
    }

    private static String row(String name, List<RunResult> rs) {
      double[] ratio = new double[rs.size()];
      int rated = 0;
      double[] done = new double[rs.size()];
      int fail = 0;
      int over = 0;
      int exempt = 0;
      int viol = 0;
      for (int i = 0; i < rs.size(); i++) {
        RunResult r = rs.get(i);
        if (!Double.isNaN(r.ratio())) {
          ratio[rated++] = r.ratio();
        }
        done[i] = r.completionNs < 0 ? Double.POSITIVE_INFINITY : r.completionNs / 1e6;
        fail += r.ok() ? 0 : 1;
        boolean slow = r.ok() && !r.withinTimeBound(TIME_BOUND_RATIO);
        over += slow ? 1 : 0;
        exempt += r.ok() && r.boundExemption() != null ? 1 : 0;
        viol += r.ok() && !r.withinBound() ? 1 : 0;
      }
      ratio = Arrays.copyOf(ratio, rated);
      return String.format("%-14s %6d %5d %6d %6d %6d %9.2f %9.2f %11.1f %11.1f%n", name, rs.size(),
          fail, exempt, over, viol, pct(ratio, 50), pct(ratio, 99), pct(done, 50), pct(done, 99));
    }
  }

  /** The {@code p}-th percentile (nearest rank) of {@code v}; sorts a copy. */
  public static double pct(double[] v, double p) {
    if (v.length == 0) {
      return Double.NaN;
    }
    double[] s = v.clone();
    Arrays.sort(s);
    int idx = (int) Math.ceil(p / 100.0 * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, idx))];
  }

  /**
   * Runs {@code runs} runs.
   *
   * @param scenario a fixed scenario, or null to mix by seed
   * @param progress receives each result as it completes (from worker threads)
   */
  public static Summary run(List<String> profiles, Scenario scenario, int runs, long baseSeed,
      int threads, ConnectionConfig config, Consumer<RunResult> progress) throws Exception {
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<RunResult>> futures = new ArrayList<>();
      for (int i = 0; i < runs; i++) {
        long seed = baseSeed + i;
        String profile = profiles.get(i % profiles.size());
        Scenario sc = scenario != null ? scenario : scenarioFor(seed);
        futures.add(pool.submit(() -> {
          RunResult r;
          try {
            r = SimRun.run(profile, sc, seed, config, -1);
          } catch (RuntimeException e) {
            r = new RunResult();
            r.seed = seed;
            r.profile = profile;
            r.scenario = sc;
            r.idealNs = 1;
            r.failure = "exception " + e;
          }
          if (progress != null) {
            progress.accept(r);
          }
          return r;
        }));
      }
      Summary s = new Summary();
      for (Future<RunResult> f : futures) {
        s.results.add(f.get());
      }
      s.wallNs = System.nanoTime() - t0;
      return s;
    } finally {
      pool.shutdownNow();
    }
  }
}
