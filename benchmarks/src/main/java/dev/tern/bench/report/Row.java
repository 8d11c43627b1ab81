package dev.tern.bench.report;

/**
 * One figure of the report: a metric of one scenario on one profile for one variant (stack and
 * congestion control), over the repetitions.
 *
 * @param profile link profile
 * @param scenario scenario name
 * @param metric metric name (for example {@code seq p99})
 * @param variant stack and congestion control, for example {@code tcp/bbr}
 * @param unit unit of the figure
 * @param ci mean and 95% interval over repetitions
 * @param ideal the link's ideal for this figure, NaN where none applies
 * @param ratioToIdeal mean / ideal (NaN without an ideal)
 * @param ratioToReference mean / the reference variant's mean (NaN for the reference itself)
 * @param lowerIsBetter whether smaller figures are better (latency) or larger (goodput)
 */
public record Row(String profile, String scenario, String metric, String variant, String unit, Ci ci,
    double ideal, double ratioToIdeal, double ratioToReference, boolean lowerIsBetter) {}
