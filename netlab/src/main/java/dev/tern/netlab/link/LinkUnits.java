package dev.tern.netlab.link;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The units of a link description: parsing is strict (a number, then one of the listed units;
 * anything else is an error naming the key, the value and the accepted forms) and exact
 * (decimal arithmetic), and formatting writes values that parse back to the same numbers.
 */
final class LinkUnits {
  /** Accepted rate forms, for messages and help. */
  static final String RATE_FORMS = "a rate in bits per second such as 500kbit, 1.1mbit or 2gbit "
      + "(units bit, kbit, mbit, gbit; '/s' optional), or unlimited";
  /** Accepted time forms. */
  static final String TIME_FORMS = "a time such as 200ms, 0.5s or 800us (units us, ms, s), or 0";
  /** Accepted probability forms. */
  static final String PROBABILITY_FORMS = "a probability such as 0.6% or 0.006 (at most 100% or 1)";
  /** Accepted burst forms. */
  static final String BURST_FORMS = "a mean burst length in packets, at least 1, such as 6 or 6pkt";
  /** Accepted queue forms. */
  static final String QUEUE_FORMS = "a droptail size such as 64kb, 64kib, 48000b or 100pkt (kb = 1000 "
      + "bytes, kib = 1024; bytes at least 1500; both limits as 64kb+100pkt), default (max(2 x BDP, "
      + "48000 bytes) at the direction's mean rate and the RTT) or none";
  /** Accepted trace forms. */
  static final String TRACE_FORMS = "a mahimahi trace file (relative to the working directory, or to "
      + "the link file), or bundled:<name> with <name> one of " + LinkProfiles.bundledTraces();

  private static final String NUMBER = "([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)";
  private static final Pattern RATE = Pattern.compile(NUMBER + "(bit|kbit|mbit|gbit)(?:/s)?");
  private static final Pattern TIME = Pattern.compile(NUMBER + "(us|ms|s)");
  private static final Pattern PERCENT = Pattern.compile(NUMBER + "%");
  private static final Pattern PLAIN = Pattern.compile(NUMBER);
  private static final Pattern BURST = Pattern.compile(NUMBER + "(?:pkt|packets)?");
  private static final Pattern BYTES = Pattern.compile(NUMBER + "(b|kb|kib|mb|mib)");
  private static final Pattern PACKETS = Pattern.compile("([0-9]+)(?:pkt|packets)");

  private LinkUnits() {}

  /** A droptail limit as parsed: bytes and packets (0 = no such limit), or the profiles' default. */
  record Queue(long bytes, int packets, boolean isDefault) {
    static final Queue DEFAULT = new Queue(0, 0, true);
    static final Queue NONE = new Queue(0, 0, false);
  }

  /** Bits per second; 0 for {@code unlimited} or {@code 0}. */
  static long rate(String key, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("unlimited") || v.equals("0")) {
      return 0;
    }
    Matcher m = RATE.matcher(v);
    if (!m.matches()) {
      throw bad(key, value, RATE_FORMS);
    }
    int shift = switch (m.group(2)) {
      case "bit" -> 0;
      case "kbit" -> 3;
      case "mbit" -> 6;
      default -> 9;
    };
    BigDecimal bits = new BigDecimal(m.group(1)).movePointRight(shift);
    if (bits.compareTo(BigDecimal.valueOf(1_000_000_000_000L)) > 0) {
      throw bad(key, value, RATE_FORMS + ", at most 1000gbit");
    }
    return bits.setScale(0, RoundingMode.HALF_UP).longValueExact();
  }

  /** Nanoseconds. */
  static long time(String key, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("0")) {
      return 0;
    }
    Matcher m = TIME.matcher(v);
    if (!m.matches()) {
      throw bad(key, value, TIME_FORMS);
    }
    int shift = switch (m.group(2)) {
      case "us" -> 3;
      case "ms" -> 6;
      default -> 9;
    };
    BigDecimal ns = new BigDecimal(m.group(1)).movePointRight(shift);
    if (ns.compareTo(BigDecimal.valueOf(1_000_000_000_000L)) > 0) {
      throw bad(key, value, TIME_FORMS + ", at most 1000s");
    }
    return ns.setScale(0, RoundingMode.HALF_UP).longValueExact();
  }

  /** A probability in [0, 1]. */
  static double probability(String key, String value) {
    String v = value.trim();
    Matcher pct = PERCENT.matcher(v);
    BigDecimal p;
    if (pct.matches()) {
      p = new BigDecimal(pct.group(1)).movePointLeft(2);
    } else if (PLAIN.matcher(v).matches()) {
      p = new BigDecimal(v);
    } else {
      throw bad(key, value, PROBABILITY_FORMS);
    }
    if (p.compareTo(BigDecimal.ONE) > 0) {
      throw bad(key, value, PROBABILITY_FORMS + (pct.matches() ? "" : "; for a percentage write " + v + "%"));
    }
    return p.doubleValue();
  }

  /** A mean burst length, at least 1 packet. */
  static double burst(String key, String value) {
    Matcher m = BURST.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw bad(key, value, BURST_FORMS);
    }
    BigDecimal b = new BigDecimal(m.group(1));
    if (b.compareTo(BigDecimal.ONE) < 0 || b.compareTo(BigDecimal.valueOf(1_000_000)) > 0) {
      throw bad(key, value, BURST_FORMS + ", at most 1000000");
    }
    return b.doubleValue();
  }

  /** A droptail limit. */
  static Queue queue(String key, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("default")) {
      return Queue.DEFAULT;
    }
    if (v.equals("none")) {
      return Queue.NONE;
    }
    long bytes = 0;
    int packets = 0;
    for (String part : v.split("\\+", -1)) {
      Matcher b = BYTES.matcher(part);
      Matcher p = PACKETS.matcher(part);
      if (b.matches() && bytes == 0) {
        int shift = switch (b.group(2)) {
          case "b" -> 0;
          case "kb" -> 3;
          default -> 6;
        };
        BigDecimal n = new BigDecimal(b.group(1));
        n = b.group(2).endsWith("ib")
            ? n.multiply(BigDecimal.valueOf(b.group(2).equals("kib") ? 1024 : 1024 * 1024))
            : n.movePointRight(shift);
        if (n.compareTo(BigDecimal.valueOf(1500)) < 0 || n.compareTo(BigDecimal.valueOf(1L << 40)) > 0) {
          throw bad(key, value, QUEUE_FORMS);
        }
        bytes = n.setScale(0, RoundingMode.HALF_UP).longValueExact();
      } else if (p.matches() && packets == 0 && p.group(1).length() < 10) {
        packets = Integer.parseInt(p.group(1));
        if (packets < 1) {
          throw bad(key, value, QUEUE_FORMS);
        }
      } else {
        throw bad(key, value, QUEUE_FORMS);
      }
    }
    return new Queue(bytes, packets, false);
  }

  /** {@code 1.1mbit}, or {@code unlimited} for 0. */
  static String formatRate(long bitsPerSecond) {
    return bitsPerSecond == 0 ? "unlimited" : plain(BigDecimal.valueOf(bitsPerSecond).movePointLeft(6)) + "mbit";
  }

  /** {@code 200ms}, {@code 0.05ms}. */
  static String formatTime(long ns) {
    return plain(BigDecimal.valueOf(ns).movePointLeft(6)) + "ms";
  }

  /** {@code 0.6%}. */
  static String formatProbability(double p) {
    return plain(new BigDecimal(Double.toString(p)).movePointRight(2)) + "%";
  }

  /** {@code 6} (packets). */
  static String formatBurst(double b) {
    return plain(new BigDecimal(Double.toString(b)));
  }

  /** {@code 64000b}, {@code 100pkt}, {@code 64000b+100pkt} or {@code none}. */
  static String formatQueue(long bytes, int packets) {
    if (bytes == 0 && packets == 0) {
      return "none";
    }
    String b = bytes > 0 ? bytes + "b" : "";
    String p = packets > 0 ? packets + "pkt" : "";
    return b.isEmpty() ? p : p.isEmpty() ? b : b + "+" + p;
  }

  private static String plain(BigDecimal d) {
    return d.stripTrailingZeros().toPlainString();
  }

  /** The error for a value that is not one of the accepted forms. */
  static IllegalArgumentException bad(String key, String value, String forms) {
    return new IllegalArgumentException("key '" + key + "': bad value '" + value + "'; accepted: " + forms);
  }
}
