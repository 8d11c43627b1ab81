package dev.tern.samples;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Prints the {@code tern.*} meters of a Micrometer registry (bound with {@code TernMeterBinder}) as
 * a table: a line per server or channel and transport, with its calls, connections, bytes and
 * refusals.
 */
final class MetricsTable {
  private MetricsTable() {}

  /**
   * Prints the table.
   *
   * @param registry the registry the counters are bound to
   * @param out where to print
   */
  static void print(MeterRegistry registry, PrintStream out) {
    List<Meter.Id> rows = new ArrayList<>();
    for (FunctionCounter started : registry.find("tern.calls.started").functionCounters()) {
      rows.add(started.getId());
    }
    rows.sort(Comparator.comparing((Meter.Id id) -> id.getTag("transport"))
        .thenComparing(id -> id.getTag("side"), Comparator.reverseOrder())
        .thenComparing(id -> id.getTag("scope")));
    out.println("Metrics (Micrometer meters tern.*, per server or channel and transport):");
    out.printf("%-7s %-10s %7s %7s %7s %7s %9s %9s %12s %12s  %s%n", "side", "transport", "calls", "ok", "failed",
        "conns", "hs fail", "hs t/o", "bytes out", "bytes in", "refusals");
    for (Meter.Id id : rows) {
      Tags tags = Tags.of("side", id.getTag("side"), "scope", id.getTag("scope"), "transport", id.getTag("transport"));
      long started = count(registry, "tern.calls.started", tags);
      long ok = count(registry, "tern.calls.finished", tags.and("code", "OK"));
      long finished = sum(registry.find("tern.calls.finished").tags(tags).functionCounters());
      StringBuilder refusals = new StringBuilder();
      for (FunctionCounter r : registry.find("tern.refusals").tags(tags).functionCounters()) {
        refusals.append(refusals.length() == 0 ? "" : ", ").append(r.getId().getTag("reason")).append('=')
            .append((long) r.count());
      }
      out.printf("%-7s %-10s %7d %7d %7d %7d %9d %9d %12d %12d  %s%n", id.getTag("side"), id.getTag("transport"),
          started, ok, finished - ok, count(registry, "tern.connections.opened", tags),
          count(registry, "tern.handshakes.failed", tags), count(registry, "tern.handshakes.timed.out", tags),
          count(registry, "tern.bytes.sent", tags), count(registry, "tern.bytes.received", tags),
          refusals.length() == 0 ? "none" : refusals);
    }
    out.println("(calls: started; ok, failed: finished with OK, with another status; conns: connections opened;"
        + " hs fail, hs t/o: handshakes failed, timed out)");
  }

  private static long count(MeterRegistry registry, String name, Tags tags) {
    FunctionCounter c = registry.find(name).tags(tags).functionCounter();
    return c == null ? 0 : (long) c.count();
  }

  private static long sum(Collection<FunctionCounter> counters) {
    long n = 0;
    for (FunctionCounter c : counters) {
      n += (long) c.count();
    }
    return n;
  }
}
