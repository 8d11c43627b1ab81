package dev.tern.bench.scenario;

/**
 * Sizes and counts of one client run.
 *
 * @param unaryCalls sequential unary calls per repetition
 * @param concurrentCalls unary calls per repetition at concurrency 16
 * @param screens feed screens per repetition
 * @param bulkBytes bytes of the bulk download
 * @param capSeconds longest one download (or feed screen) may run before it is cut and reported as capped
 * @param setupSamples cold connections per repetition
 * @param seed seed of every random choice (image sizes)
 * @param idleConnections connections the scale scenario opens and leaves idle
 * @param activeConnections connections of the scale scenario making unary calls
 * @param activeSeconds how long the scale scenario's active connections make calls
 * @param migrationBytes bytes of the migration scenario's download
 * @param stallSeconds migration: a download that receives nothing for this long after the move is
 *     reported as stalled and cut
 * @param fallbackSeconds fallback: how long the first call may take before it counts as failed
 * @param linkDownBitsPerSecond the link's mean server-to-client rate, 0 when unshaped: the bulk
 *     scenario uses it to tell the messages delivered together at its first receipt
 */
record ClientConfig(int unaryCalls, int concurrentCalls, int screens, long bulkBytes, int capSeconds,
    int setupSamples, long seed, int idleConnections, int activeConnections, int activeSeconds,
    long migrationBytes, int stallSeconds, int fallbackSeconds, double linkDownBitsPerSecond) {

  static ClientConfig from(Args a) {
    return new ClientConfig(a.getInt("unary-calls", 50), a.getInt("concurrent-calls", 160),
        a.getInt("screens", 4), a.getLong("bulk-bytes", 2L << 20), a.getInt("cap-seconds", 60),
        a.getInt("setup-samples", 2), a.getLong("seed", 1),
        a.getInt("idle-connections", 500), a.getInt("active-connections", 16), a.getInt("active-seconds", 20),
        a.getLong("migration-bytes", 1L << 20), a.getInt("stall-seconds", 5), a.getInt("fallback-seconds", 15),
        a.getDouble("link-down-bps", 0));
  }

  String[] toArgs() {
    return new String[] {"--unary-calls", Integer.toString(unaryCalls),
        "--concurrent-calls", Integer.toString(concurrentCalls), "--screens", Integer.toString(screens),
        "--bulk-bytes", Long.toString(bulkBytes), "--cap-seconds", Integer.toString(capSeconds),
        "--setup-samples", Integer.toString(setupSamples), "--seed", Long.toString(seed),
        "--idle-connections", Integer.toString(idleConnections), "--active-connections",
        Integer.toString(activeConnections), "--active-seconds", Integer.toString(activeSeconds),
        "--migration-bytes", Long.toString(migrationBytes), "--stall-seconds", Integer.toString(stallSeconds),
        "--fallback-seconds", Integer.toString(fallbackSeconds),
        "--link-down-bps", Double.toString(linkDownBitsPerSecond)};
  }
}
