package dev.tern.bench.scenario;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * {@code scale}: many connections to one server. {@code idleConnections} connections each make one
 * unary call and then stay open; then {@code activeConnections} more connections make sequential
 * 1 KiB unary calls for {@code activeSeconds}. The server process is sampled ({@link ServerStats})
 * before, with the idle connections open, and after the active calls: heap and RSS growth per idle
 * connection, CPU per connection set up and per active call, and the active calls' latencies.
 */
final class ScaleScenario {
  static final String NAME = "scale";
  private static final int OPENERS = 8;

  private ScaleScenario() {}

  static void run(int rep, ClientContext ctx) throws Exception {
    int idle = ctx.config().idleConnections();
    int active = ctx.config().activeConnections();
    List<ManagedChannel> channels = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(OPENERS, active));
    try {
      ServerStats base = ctx.coordinator().serverStats();
      AtomicInteger failed = new AtomicInteger();
      List<Future<ManagedChannel>> opens = new ArrayList<>();
      for (int i = 0; i < idle; i++) {
        opens.add(pool.submit(() -> {
          ManagedChannel ch = ctx.newChannel();
          try {
            Calls.unary(ch, CallOptions.DEFAULT, UnaryScenario.BYTES, UnaryScenario.BYTES);
          } catch (RuntimeException e) {
            failed.incrementAndGet();
          }
          return ch;
        }));
      }
      for (Future<ManagedChannel> f : opens) {
        channels.add(f.get());
      }
      ServerStats withIdle = ctx.coordinator().serverStats();
      int opened = idle - failed.get();
      ctx.recorder().metric(rep, NAME, "idle_failed", failed.get());
      if (opened > 0) {
        double[] per = withIdle.perUnitSince(base, opened);
        ctx.recorder().metric(rep, NAME, "heap_per_conn_kib", per[0] / 1024);
        ctx.recorder().metric(rep, NAME, "rss_per_conn_kib", per[1] / 1024);
        ctx.recorder().metric(rep, NAME, "cpu_per_conn_ms", per[2] / 1e6);
      }
      ctx.coordinator().progress(NAME + " rep " + rep + ": " + opened + " idle connections, server " + withIdle);
      Histogram h = Recorder.newHistogram();
      AtomicInteger calls = new AtomicInteger();
      AtomicInteger callFailures = new AtomicInteger();
      List<ManagedChannel> activeChannels = new ArrayList<>();
      List<Future<ManagedChannel>> activeOpens = new ArrayList<>();
      for (int i = 0; i < active; i++) {
        activeOpens.add(pool.submit(() -> {
          ManagedChannel ch = ctx.newChannel();
          Calls.unary(ch, CallOptions.DEFAULT, UnaryScenario.BYTES, UnaryScenario.BYTES); // setup left out
          return ch;
        }));
      }
      for (Future<ManagedChannel> f : activeOpens) {
        activeChannels.add(f.get());
      }
      channels.addAll(activeChannels);
      ServerStats beforeActive = ctx.coordinator().serverStats();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(ctx.config().activeSeconds());
      List<Future<?>> lanes = new ArrayList<>();
      for (ManagedChannel ch : activeChannels) {
        lanes.add(pool.submit(() -> {
          while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            try {
              Calls.unary(ch, CallOptions.DEFAULT, UnaryScenario.BYTES, UnaryScenario.BYTES);
            } catch (RuntimeException e) {
              callFailures.incrementAndGet();
              continue;
            }
            long us = Math.max(1, (System.nanoTime() - t0) / 1000);
            synchronized (h) {
              h.recordValue(us);
            }
            calls.incrementAndGet();
          }
          return null;
        }));
      }
      for (Future<?> f : lanes) {
        f.get();
      }
      ServerStats after = ctx.coordinator().serverStats();
      ctx.recorder().histogram(rep, NAME, "active", h);
      ctx.recorder().metric(rep, NAME, "active_failed_calls", callFailures.get());
      ctx.recorder().metric(rep, NAME, "active_calls", calls.get());
      if (calls.get() > 0) {
        ctx.recorder().metric(rep, NAME, "cpu_per_call_us", after.perUnitSince(beforeActive, calls.get())[2] / 1e3);
      }
      ctx.coordinator().progress(NAME + " rep " + rep + ": " + calls.get() + " active calls, p50 "
          + h.getValueAtPercentile(50) / 1000.0 + " ms, server " + after);
    } finally {
      pool.shutdownNow();
      for (ManagedChannel ch : channels) {
        ch.shutdownNow();
      }
      for (ManagedChannel ch : channels) {
        ch.awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
