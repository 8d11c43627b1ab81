package dev.tern.bench.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The fault windows as they happened, and the steady load's failed calls, each put in the window
 * that explains it or counted as outside every window.
 *
 * <p>A short call (unary, download) failed inside a window if its life, from start to end,
 * overlaps the window stretched by {@link #GRACE_NANOS} after its end. A chat, which lives for
 * {@link TransportLoad#CHAT_SECONDS} and so overlaps some window most of the time, failed inside a
 * window only if it ended inside the stretched window. Attribution happens when the call ends: by
 * then every window that can overlap the call has begun, and one still open counts as open-ended.
 */
final class FaultLog {
  /**
   * How long after a fault ends its effects may still fail a call: after datagrams are dropped for
   * a few seconds, the transports' probe timers have backed off and the first retransmission can
   * come seconds after the path is back; a connection the fault killed is reconnected.
   */
  static final long GRACE_NANOS = 5_000_000_000L;
  /** The name of the place failures outside every window are counted. */
  static final String OUTSIDE = "outside";
  /** Failed calls outside every window kept in detail (the counts are complete whatever the bounds). */
  static final int MAX_DETAILS = 200;
  /** Failed calls inside windows kept in detail per transport, fault and status code. */
  static final int MAX_DETAILS_PER_KIND = 5;

  /** One fault's window on the run's clock; {@code endNanos} is {@link Long#MAX_VALUE} while it lasts. */
  static final class Window {
    final int index;
    final Fault fault;
    final long startNanos;
    volatile long endNanos = Long.MAX_VALUE;
    final Map<String, Object> detail = new ConcurrentHashMap<>();

    /** The {@code index}th window, of {@code fault}, opened at {@code startNanos}. */
    Window(int index, Fault fault, long startNanos) {
      this.index = index;
      this.fault = fault;
      this.startNanos = startNanos;
    }
  }

  /**
   * A failed call of the steady load.
   *
   * @param transport the channel's transport
   * @param kind unary, download or chat
   * @param startNanos when it started, on the run's clock
   * @param endNanos when it failed, on the run's clock
   * @param code the status code
   * @param description the status description, or null
   * @param window the fault it was put down to, or {@link #OUTSIDE}
   */
  record Failure(String transport, String kind, long startNanos, long endNanos, String code, String description,
      String window) {}

  private final long originNanos;
  private final List<Window> windows = new CopyOnWriteArrayList<>();
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
  private final List<Failure> details = new CopyOnWriteArrayList<>();
  private final AtomicInteger detailed = new AtomicInteger();

  /** A log whose clock starts at {@code originNanos} ({@link System#nanoTime()}). */
  FaultLog(long originNanos) {
    this.originNanos = originNanos;
  }

  /** Nanoseconds since the run began. */
  long now() {
    return System.nanoTime() - originNanos;
  }

  /** Opens a window for {@code fault} now. */
  Window open(Fault fault) {
    Window w = new Window(windows.size(), fault, now());
    windows.add(w);
    return w;
  }

  /** Closes {@code w} now. */
  void close(Window w) {
    w.endNanos = now();
  }

  /** The windows so far, in order. */
  List<Window> windows() {
    return new ArrayList<>(windows);
  }

  /**
   * The labels of the faults whose windows overlap {@code [fromNanos, toNanos]}, joined by {@code
   * +}; empty if none.
   */
  String faultsDuring(long fromNanos, long toNanos) {
    List<String> on = new ArrayList<>();
    for (Window w : windows) {
      if (w.startNanos <= toNanos && w.endNanos >= fromNanos && !on.contains(w.fault.label())) {
        on.add(w.fault.label());
      }
    }
    return String.join("+", on);
  }

  /** The fault a call that lived from {@code startNanos} to {@code endNanos} is put down to, or {@link #OUTSIDE}. */
  String attribute(long startNanos, long endNanos, boolean longLived) {
    for (Window w : windows) {
      long graceEnd = w.endNanos == Long.MAX_VALUE ? Long.MAX_VALUE : w.endNanos + GRACE_NANOS;
      boolean inside = longLived
          ? endNanos >= w.startNanos && endNanos <= graceEnd
          : startNanos <= graceEnd && endNanos >= w.startNanos;
      if (inside) {
        return w.fault.label();
      }
    }
    return OUTSIDE;
  }

  /** Records a failed call of the steady load that started at {@code startNanos} and ends now. */
  void failed(String transport, String kind, long startNanos, String code, String description, boolean longLived) {
    long end = now();
    String window = attribute(startNanos, end, longLived);
    LongAdder n = counts.computeIfAbsent(transport + "|" + window + "|" + code, k -> new LongAdder());
    n.increment();
    // Failures outside every window are what the run is judged on: keep those; of the others, a
    // few of each kind, enough to tell what happened.
    boolean keep = OUTSIDE.equals(window) ? detailed.incrementAndGet() <= MAX_DETAILS
        : n.sum() <= MAX_DETAILS_PER_KIND;
    if (keep) {
      details.add(new Failure(transport, kind, startNanos, end, code, description, window));
    }
  }

  /** Failed steady-load calls by transport, then window ({@link #OUTSIDE} or a fault), then status code. */
  Map<String, Map<String, Map<String, Long>>> failureCounts() {
    Map<String, Map<String, Map<String, Long>>> out = new LinkedHashMap<>();
    new java.util.TreeMap<>(counts).forEach((k, v) -> {
      String[] p = k.split("\\|", 3);
      out.computeIfAbsent(p[0], x -> new LinkedHashMap<>()).computeIfAbsent(p[1], x -> new LinkedHashMap<>())
          .put(p[2], v.sum());
    });
    return out;
  }

  /** The failed calls kept in detail. */
  List<Failure> details() {
    return new ArrayList<>(details);
  }
}
