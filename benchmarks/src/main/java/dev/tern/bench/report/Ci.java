package dev.tern.bench.report;

/**
 * Mean and 95% confidence interval of a few repetitions, with Student's t (two-sided, n - 1
 * degrees of freedom), as is right for small samples of roughly normal per-repetition figures.
 *
 * @param n number of values
 * @param mean their mean
 * @param halfWidth half the 95% interval (NaN for fewer than two values)
 */
public record Ci(int n, double mean, double halfWidth) {
  // t(0.975, df) for df = 1..30; beyond that 1.96 is close enough.
  private static final double[] T975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
      2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
      2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

  /**
   * The interval of {@code values} (NaN entries are left out).
   *
   * @throws IllegalArgumentException if no value is a number
   */
  public static Ci of(double[] values) {
    int n = 0;
    double sum = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        n++;
        sum += v;
      }
    }
    if (n == 0) {
      throw new IllegalArgumentException("no values to summarise");
    }
    double mean = sum / n;
    if (n < 2) {
      return new Ci(n, mean, Double.NaN);
    }
    double ss = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        ss += (v - mean) * (v - mean);
      }
    }
    double sd = Math.sqrt(ss / (n - 1));
    return new Ci(n, mean, t975(n - 1) * sd / Math.sqrt(n));
  }

  /** The two-sided 95% Student t quantile for {@code df} degrees of freedom. */
  static double t975(int df) {
    return df <= T975.length ? T975[df - 1] : 1.96;
  }
}
