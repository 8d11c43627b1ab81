package dev.tern.bench.scenario;

/**
 * The sizes, counts and caps of a full run fitted to each link, and a rough estimate of how long
 * each phase takes, so that the whole run stays within its time budget and says at the start how
 * long it will be. Transfers are sized to a few seconds at the link's ideal rate; caps end the
 * waits that cannot succeed (a download far slower than the link, a connection that cannot follow
 * the client's new address, a first call that cannot get through).
 */
final class Budget {
  /** Sequential unary calls per repetition (the tenth call is the repetition's p99 and max). */
  static final int UNARY_CALLS = 10;
  /** Unary calls at concurrency 16 per repetition: two rounds. */
  static final int CONCURRENT_CALLS = 32;
  /** Migration: no byte for this long after the move ends the wait as a stall. */
  static final int STALL_SECONDS = 4;
  /** Fallback: a first call not answered within this long counts as failed (DEADLINE_EXCEEDED). */
  static final int FALLBACK_SECONDS = 6;
  /** Mean image of the feed screen (30-200 KiB). */
  private static final double MEAN_IMAGE_BYTES = 115 * 1024;

  private Budget() {}

  /**
   * The bulk download: 20 MiB on links of 20 Mbit/s and more (or unshaped), 2 MiB on trace links,
   * 1 MiB from 2 Mbit/s, 512 KiB below: about four seconds at the ideal rate on the slow links.
   */
  static long bulkBytes(LinkSpec link) {
    if (!link.shaped() || link.downBitsPerSecond() >= 20e6) {
      return 20L << 20;
    }
    if (link.trace()) {
      return 2L << 20;
    }
    return link.downBitsPerSecond() >= 2e6 ? 1L << 20 : 512L << 10;
  }

  /**
   * The migration download: a quarter of the bulk size, at most 1 MiB. A third must arrive before
   * the move, and kernel CUBIC on the lossy slow links gets a tenth of the link (0.1 Mbit/s on
   * {@code crowded}), so a larger one costs many seconds before anything is measured.
   */
  static long migrationBytes(long bulkBytes) {
    return Math.min(bulkBytes / 4, 1L << 20);
  }

  /**
   * Longest one download or feed image may run: twice the bulk download's ideal time plus two
   * round trips, at least 8 s and at most 45 s. A stack slower than half the link is cut and
   * reported as capped instead of being waited for.
   */
  static int capSeconds(LinkSpec link, long bulkBytes) {
    double rate = link.idealGoodputBitsPerSecond();
    if (rate <= 0) {
      return 45;
    }
    double ideal = 2 * bulkBytes * 8 / rate + 2 * link.rttMillis() / 1000;
    return (int) Math.max(8, Math.min(45, Math.ceil(ideal)));
  }

  /** A rough estimate, in seconds, of one repetition of {@code scenario} on {@code link}. */
  static double estimateSeconds(LinkSpec link, ClientConfig c, String scenario, String stack) {
    double rtt = Math.max(0.001, link.rttMillis() / 1000);
    double rate = link.idealGoodputBitsPerSecond() > 0 ? link.idealGoodputBitsPerSecond() : 1e9;
    // Kernel CUBIC slows far below the link under random loss (a tenth of it on crowded).
    double lossy = 1 + 25 * link.loss();
    return switch (scenario) {
      case UnaryScenario.NAME -> (c.unaryCalls() + 2 + 1.5 * c.concurrentCalls() / 16.0) * rtt * lossy + 0.3;
      case FeedScenario.NAME -> Math.min(c.capSeconds() + 2,
          0.7 * FeedScenario.IMAGES * MEAN_IMAGE_BYTES * 8 / rate * lossy + 4 * rtt) * c.screens();
      case BulkScenario.NAME -> Math.min(c.capSeconds() + 2, 1.5 * c.bulkBytes() * 8 / rate * lossy + 4 * rtt);
      case SetupScenario.NAME -> 2 * (5 * rtt * lossy + 0.2) * c.setupSamples();
      case MigrationScenario.NAME -> c.migrationBytes() * 8 / rate * lossy + c.stallSeconds() + 10 * rtt;
      case FallbackScenario.NAME -> stack.equals("quic") || stack.equals("udp") ? c.fallbackSeconds()
          : 5 * rtt * lossy + 0.5;
      case ScaleScenario.NAME -> c.activeSeconds() + c.idleConnections() * 0.02;
      default -> 5;
    };
  }

  /** Seconds a variant costs besides its scenarios: the lab, two JVM starts and the warm-up. */
  static double overheadSeconds(LinkSpec link) {
    return 8 + 5 * link.rttMillis() / 1000;
  }
}
