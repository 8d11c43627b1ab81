package dev.tern.conformance;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records the buffer leaks Netty's {@link ResourceLeakDetector} reports, so that a test fails on
 * them instead of a log line going unread. Paranoid level: every buffer is tracked.
 */
public final class LeakDetection {
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
  private static volatile boolean installed;

  private LeakDetection() {}

  /** Turns on paranoid leak detection and installs the recording listener (idempotent). */
  public static synchronized void install() {
    if (installed) {
      return;
    }
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    ByteBufUtil.setLeakListener((resourceType, records) -> LEAKS.add(resourceType + ": " + firstLines(records)));
    installed = true;
  }

  private static String firstLines(String records) {
    String[] lines = records.split("\n");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(lines.length, 12); i++) {
      sb.append(lines[i]).append('\n');
    }
    return sb.toString();
  }

  /** Leaks reported so far and not yet {@linkplain #drain() drained}. */
  public static List<String> reported() {
    return new ArrayList<>(LEAKS);
  }

  /** Returns the reported leaks and forgets them. */
  public static synchronized List<String> drain() {
    List<String> out = new ArrayList<>(LEAKS);
    LEAKS.clear();
    return out;
  }

  /**
   * Makes unreachable leaked buffers show up: collects garbage until a sentinel object's weak
   * reference is enqueued (the collector ran and references were processed), then allocates and
   * releases tracked buffers, which is when the detector reports what it found. Repeated until two
   * rounds in a row report nothing new, because a collection may not find every buffer at once.
   */
  public static void collectAndReport() throws InterruptedException {
    int quietRounds = 0;
    for (int round = 0; round < 10 && quietRounds < 2; round++) {
      int before = LEAKS.size();
      ReferenceQueue<Object> queue = new ReferenceQueue<>();
      WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
      for (int i = 0; i < 20 && queue.remove(100) == null; i++) {
        System.gc();
      }
      sentinel.clear();
      for (int i = 0; i < 16; i++) {
        ByteBuf probe = Unpooled.buffer(8);
        probe.release();
        ByteBuf direct = Unpooled.directBuffer(8);
        direct.release();
      }
      quietRounds = LEAKS.size() == before ? quietRounds + 1 : 0;
    }
  }
}
