package dev.tern.netlab.link;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Links a user describes, as {@link LinkProfile}s: a compact spec string
 * ({@code down=1.1mbit,up=0.5mbit,rtt=200ms,loss=0.6%,burst=6,jitter=50ms,reorder=0.2%,queue=64kb})
 * or a file of the same {@code key=value} pairs, one a line. Parsing is strict: an unknown key, a
 * key given twice, a bad value or unit is an {@link IllegalArgumentException} naming the key, the
 * value and the accepted forms. {@link #format} writes any profile back as a spec that parses to
 * the same link.
 *
 * <p>Keys ({@code up-} or {@code down-} before a per-direction key sets one direction only and
 * wins over the key without prefix):
 * <ul>
 *   <li>{@code down}, {@code up}: each direction's rate ({@code 1.1mbit}, {@code unlimited});
 *       after the prefix {@code trace:} ({@code trace:down=FILE,up=FILE,rtt=70ms}) they name
 *       mahimahi trace files instead; {@code rate} sets both; {@code trace} (per direction) a
 *       trace file or {@code bundled:<name>}.</li>
 *   <li>{@code rtt}: round-trip propagation, split evenly; or {@code delay} (one way, per
 *       direction).</li>
 *   <li>{@code jitter}: peak-to-peak wander of the delay (at most twice the one-way delay).</li>
 *   <li>{@code loss}: mean loss rate; independent random loss, or with {@code burst} (mean burst
 *       length in packets) Gilbert-Elliott bursty loss; {@code random-loss} adds independent loss
 *       to a bursty channel.</li>
 *   <li>{@code reorder} (probability) and {@code reorder-delay} (extra delay of a held-back
 *       packet, default 20 ms); {@code duplicate}, {@code corrupt} (probabilities).</li>
 *   <li>{@code queue}: droptail limit, bytes or packets, {@code default} (the profiles' rule,
 *       also when absent on a shaped link) or {@code none}.</li>
 *   <li>{@code name}: the link's name in reports (default {@code custom}).</li>
 * </ul>
 */
public final class CustomLinks {
  /** The prefix of a spec whose {@code down} and {@code up} name trace files. */
  public static final String TRACE_PREFIX = "trace:";
  /** The name of a link given without {@code name=}. */
  public static final String DEFAULT_NAME = "custom";
  /** The keys that may carry an {@code up-} or {@code down-} prefix. */
  public static final List<String> PER_DIRECTION_KEYS = List.of("rate", "trace", "delay", "jitter", "loss",
      "burst", "random-loss", "reorder", "reorder-delay", "duplicate", "corrupt", "queue");
  /** Every key accepted, for messages and help. */
  public static final String KEYS = "down, up, rtt, name, rate, trace, delay, jitter, loss, burst, random-loss, "
      + "reorder, reorder-delay, duplicate, corrupt, queue (the last 12 also as up-<key> or down-<key>)";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,40}");
  private static final long DEFAULT_REORDER_DELAY_NS = 20_000_000L;

  private CustomLinks() {}

  /**
   * Parses a spec string: comma-separated {@code key=value} pairs, optionally after
   * {@code trace:}. Relative trace paths resolve against the working directory.
   *
   * @throws IllegalArgumentException naming the key, the value and the accepted forms
   */
  public static LinkProfile parse(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("link spec is empty; accepted: comma-separated key=value pairs "
          + "such as down=1.1mbit,up=0.5mbit,rtt=200ms (keys: " + KEYS + ")");
    }
    String s = spec.trim();
    boolean traceMode = s.startsWith(TRACE_PREFIX);
    if (traceMode) {
      s = s.substring(TRACE_PREFIX.length());
    }
    List<String[]> pairs = new ArrayList<>();
    for (String part : s.split(",", -1)) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("link spec '" + spec + "': '" + part.trim() + "' is not key=value; "
            + "accepted: comma-separated key=value pairs such as down=1.1mbit,up=0.5mbit,rtt=200ms (keys: "
            + KEYS + ")");
      }
      pairs.add(new String[] {part.substring(0, eq).trim(), part.substring(eq + 1).trim()});
    }
    try {
      return build(pairs, traceMode, Path.of(""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("link spec '" + spec + "': " + e.getMessage(), e);
    }
  }

  /**
   * Reads a link file: one {@code key=value} (or {@code key: value}) a line, the keys of
   * {@link #parse}; blank lines and lines starting with {@code #} or {@code !} are ignored.
   * Trace files are named with {@code down-trace} / {@code up-trace}; relative paths resolve
   * against the file's directory.
   *
   * @throws IllegalArgumentException naming the file, the key, the value and the accepted forms
   * @throws UncheckedIOException naming the file when it cannot be read
   */
  public static LinkProfile load(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read link file " + file, e);
    }
    List<String[]> pairs = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).trim();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
        continue;
      }
      int eq = line.indexOf('=');
      int colon = line.indexOf(':');
      int sep = eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
      if (sep <= 0) {
        throw new IllegalArgumentException("link file " + file + " line " + (i + 1) + ": '" + line
            + "' is not key=value; keys: " + KEYS);
      }
      pairs.add(new String[] {line.substring(0, sep).trim(), line.substring(sep + 1).trim()});
    }
    if (pairs.isEmpty()) {
      throw new IllegalArgumentException("link file " + file + " holds no key=value line; keys: " + KEYS);
    }
    Path dir = file.toAbsolutePath().getParent();
    try {
      return build(pairs, false, dir);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("link file " + file + ": " + e.getMessage(), e);
    }
  }

  /** The link's spec: parses back to the same two directions (the name left out). */
  public static String format(LinkProfile p) {
    LinkConfig up = p.clientToServer();
    LinkConfig down = p.serverToClient();
    List<String> parts = new ArrayList<>();
    parts.add(rateOrTrace("down", down));
    parts.add(rateOrTrace("up", up));
    if (up.propagationDelayNs() == down.propagationDelayNs()) {
      parts.add("rtt=" + LinkUnits.formatTime(2 * up.propagationDelayNs()));
    } else {
      parts.add("up-delay=" + LinkUnits.formatTime(up.propagationDelayNs()));
      parts.add("down-delay=" + LinkUnits.formatTime(down.propagationDelayNs()));
    }
    merge(parts, List.of("jitter=" + LinkUnits.formatTime(up.jitterNs())),
        List.of("jitter=" + LinkUnits.formatTime(down.jitterNs())));
    merge(parts, lossTokens(up), lossTokens(down));
    merge(parts, reorderTokens(up), reorderTokens(down));
    merge(parts, List.of("duplicate=" + LinkUnits.formatProbability(up.duplicateProbability())),
        List.of("duplicate=" + LinkUnits.formatProbability(down.duplicateProbability())));
    merge(parts, List.of("corrupt=" + LinkUnits.formatProbability(up.corruptProbability())),
        List.of("corrupt=" + LinkUnits.formatProbability(down.corruptProbability())));
    merge(parts, List.of("queue=" + LinkUnits.formatQueue(up.queueLimitBytes(), up.queueLimitPackets())),
        List.of("queue=" + LinkUnits.formatQueue(down.queueLimitBytes(), down.queueLimitPackets())));
    return String.join(",", parts);
  }

  /** The link in full: its name, its spec, then every setting of each direction. */
  public static String describe(LinkProfile p) {
    return "link " + p.name() + ": " + format(p) + "\n  server-to-client (down): " + p.serverToClient().describe()
        + "\n  client-to-server (up):   " + p.clientToServer().describe();
  }

  private static String rateOrTrace(String dir, LinkConfig c) {
    return c.trace() != null ? dir + "-trace=" + c.trace().source() : dir + "=" + LinkUnits.formatRate(c.rateBitsPerSecond());
  }

  private static List<String> lossTokens(LinkConfig c) {
    if (c.burstLossRate() > 0) {
      List<String> t = new ArrayList<>(List.of("loss=" + LinkUnits.formatProbability(c.burstLossRate()),
          "burst=" + LinkUnits.formatBurst(c.meanBurstPackets())));
      if (c.lossProbability() > 0) {
        t.add("random-loss=" + LinkUnits.formatProbability(c.lossProbability()));
      }
      return t;
    }
    return List.of("loss=" + LinkUnits.formatProbability(c.lossProbability()));
  }

  private static List<String> reorderTokens(LinkConfig c) {
    return c.reorderProbability() > 0
        ? List.of("reorder=" + LinkUnits.formatProbability(c.reorderProbability()),
            "reorder-delay=" + LinkUnits.formatTime(c.reorderExtraDelayNs()))
        : List.of("reorder=0%");
  }

  private static void merge(List<String> parts, List<String> up, List<String> down) {
    if (up.equals(down)) {
      parts.addAll(up);
    } else {
      up.forEach(t -> parts.add("up-" + t));
      down.forEach(t -> parts.add("down-" + t));
    }
  }

  /** The pairs as given; {@code traceMode}: {@code down}/{@code up} name traces. */
  private static LinkProfile build(List<String[]> pairs, boolean traceMode, Path baseDir) {
    Map<String, String[]> shared = new LinkedHashMap<>();
    Map<String, String[]> upOnly = new LinkedHashMap<>();
    Map<String, String[]> downOnly = new LinkedHashMap<>();
    String name = DEFAULT_NAME;
    String rtt = null;
    List<String> seen = new ArrayList<>();
    for (String[] kv : pairs) {
      String key = kv[0];
      String value = kv[1];
      if (seen.contains(key)) {
        throw new IllegalArgumentException("key '" + key + "' given twice");
      }
      seen.add(key);
      if (value.isEmpty()) {
        throw new IllegalArgumentException("key '" + key + "' has no value");
      }
      switch (key) {
        case "name" -> {
          if (!NAME.matcher(value).matches()) {
            throw LinkUnits.bad(key, value, "1 to 40 letters, digits, '.', '_' or '-'");
          }
          name = value;
        }
        case "rtt" -> rtt = value;
        case "down" -> put(downOnly, traceMode ? "trace" : "rate", key, value);
        case "up" -> put(upOnly, traceMode ? "trace" : "rate", key, value);
        default -> {
          if (PER_DIRECTION_KEYS.contains(key)) {
            put(shared, key, key, value);
          } else if (key.startsWith("up-") && PER_DIRECTION_KEYS.contains(key.substring(3))) {
            put(upOnly, key.substring(3), key, value);
          } else if (key.startsWith("down-") && PER_DIRECTION_KEYS.contains(key.substring(5))) {
            put(downOnly, key.substring(5), key, value);
          } else {
            throw new IllegalArgumentException("unknown key '" + key + "' (in '" + key + "=" + value
                + "'); accepted keys: " + KEYS);
          }
        }
      }
    }
    long[] delays = new long[2];
    if (rtt != null) {
      for (Map<String, String[]> m : List.of(shared, upOnly, downOnly)) {
        if (m.containsKey("delay")) {
          throw new IllegalArgumentException("key 'rtt' and key '" + m.get("delay")[0]
              + "' both set the delay; give one");
        }
      }
      long r = LinkUnits.time("rtt", rtt);
      delays[0] = r / 2;
      delays[1] = r - r / 2;
    }
    Direction up = new Direction("up", shared, upOnly, baseDir, delays[0]);
    Direction down = new Direction("down", shared, downOnly, baseDir, delays[1]);
    long rttNs = up.delayNs + down.delayNs;
    LinkConfig upConfig = up.build(rttNs);
    LinkConfig downConfig = down.build(rttNs);
    return new LinkProfile(name, format(new LinkProfile(name, "", upConfig, downConfig)), upConfig, downConfig);
  }

  private static void put(Map<String, String[]> m, String key, String given, String value) {
    String[] before = m.get(key);
    if (before != null) {
      throw new IllegalArgumentException("keys '" + before[0] + "' and '" + given + "' both set the "
          + key + "; give one");
    }
    m.put(key, new String[] {given, value});
  }

  /** One direction's settings: the direction's own value of a key, else the shared one. */
  private static final class Direction {
    private final String dir;
    private final Map<String, String[]> shared;
    private final Map<String, String[]> own;
    private final Path baseDir;
    private final long delayNs;

    Direction(String dir, Map<String, String[]> shared, Map<String, String[]> own, Path baseDir, long rttHalfNs) {
      this.dir = dir;
      this.shared = shared;
      this.own = own;
      this.baseDir = baseDir;
      String delay = value("delay");
      this.delayNs = delay != null ? LinkUnits.time(key("delay"), delay) : rttHalfNs;
    }

    private String value(String key) {
      String[] kv = own.containsKey(key) ? own.get(key) : shared.get(key);
      return kv == null ? null : kv[1];
    }

    /** The key as the user wrote it ({@code down} for the rate given as {@code down=}). */
    private String key(String key) {
      String[] kv = own.containsKey(key) ? own.get(key) : shared.get(key);
      return kv == null ? key : kv[0];
    }

    LinkConfig build(long rttNs) {
      LinkConfig.Builder b = LinkConfig.builder().delayNs(delayNs);
      String rate = value("rate");
      String trace = value("trace");
      if (rate != null && trace != null && own.containsKey("rate") != own.containsKey("trace")) {
        // the direction's own setting wins over the shared one
        if (own.containsKey("rate")) {
          trace = null;
        } else {
          rate = null;
        }
      }
      if (rate != null && trace != null) {
        throw new IllegalArgumentException("the " + dir + " direction has both a rate ('" + rate + "') and a trace ('"
            + trace + "'); give one");
      }
      if (rate != null) {
        b.rateBitsPerSecond(LinkUnits.rate(key("rate"), rate));
      }
      if (trace != null) {
        b.trace(trace(key("trace"), trace));
      }
      String jitter = value("jitter");
      if (jitter != null) {
        long j = LinkUnits.time(key("jitter"), jitter);
        if (j > 2 * delayNs) {
          throw LinkUnits.bad(key("jitter"), jitter, "a jitter of at most twice the " + dir + " direction's one-way "
              + "delay (" + LinkUnits.formatTime(delayNs) + " here: rtt or delay sets it)");
        }
        b.jitterMs(j / 1e6);
      }
      String loss = value("loss");
      String burst = value("burst");
      String randomLoss = value("random-loss");
      if (burst != null) {
        if (loss == null) {
          throw new IllegalArgumentException("key '" + key("burst") + "' needs 'loss' (the mean loss rate of the "
              + "bursty channel)");
        }
        double l = LinkUnits.probability(key("loss"), loss);
        if (l >= 1) {
          throw LinkUnits.bad(key("loss"), loss, "a bursty loss rate below 100%");
        }
        b.burstLoss(l, LinkUnits.burst(key("burst"), burst));
        if (randomLoss != null) {
          b.loss(LinkUnits.probability(key("random-loss"), randomLoss));
        }
      } else if (loss != null && randomLoss != null) {
        throw new IllegalArgumentException("keys '" + key("loss") + "' and '" + key("random-loss")
            + "' both set random loss; 'random-loss' adds to a bursty 'loss' (with 'burst')");
      } else if (loss != null || randomLoss != null) {
        b.loss(LinkUnits.probability(key(loss != null ? "loss" : "random-loss"), loss != null ? loss : randomLoss));
      }
      String reorder = value("reorder");
      String reorderDelay = value("reorder-delay");
      if (reorderDelay != null && reorder == null) {
        throw new IllegalArgumentException("key '" + key("reorder-delay") + "' needs 'reorder' (the probability)");
      }
      if (reorder != null) {
        long extra = reorderDelay != null ? LinkUnits.time(key("reorder-delay"), reorderDelay) : DEFAULT_REORDER_DELAY_NS;
        b.reorder(LinkUnits.probability(key("reorder"), reorder), extra / 1e6);
      }
      String duplicate = value("duplicate");
      if (duplicate != null) {
        b.duplicate(LinkUnits.probability(key("duplicate"), duplicate));
      }
      String corrupt = value("corrupt");
      if (corrupt != null) {
        b.corrupt(LinkUnits.probability(key("corrupt"), corrupt));
      }
      String queue = value("queue");
      LinkUnits.Queue q = queue == null ? LinkUnits.Queue.DEFAULT : LinkUnits.queue(key("queue"), queue);
      LinkConfig shaped = b.build();
      if (q.isDefault()) {
        long mean = shaped.meanRateBitsPerSecond();
        return mean == 0 ? shaped : b.queueLimitBytes(LinkProfiles.defaultQueueBytes(mean, rttNs / 1e6)).build();
      }
      return b.queueLimitBytes(q.bytes()).queueLimitPackets(q.packets()).build();
    }

    private TraceSchedule trace(String key, String value) {
      if (value.startsWith(LinkProfiles.BUNDLED_PREFIX)) {
        String file = value.substring(LinkProfiles.BUNDLED_PREFIX.length());
        if (!LinkProfiles.bundledTraces().contains(file)) {
          throw LinkUnits.bad(key, value, LinkUnits.TRACE_FORMS);
        }
        return LinkProfiles.bundledTrace(file);
      }
      Path p = baseDir.resolve(value);
      if (!Files.isRegularFile(p)) {
        throw LinkUnits.bad(key, value, LinkUnits.TRACE_FORMS + " (no file " + p.toAbsolutePath() + ")");
      }
      try {
        return TraceSchedule.load(p);
      } catch (IllegalArgumentException | UncheckedIOException e) {
        throw LinkUnits.bad(key, value, LinkUnits.TRACE_FORMS + " (" + e.getMessage() + ")");
      }
    }
  }
}
