package dev.tern.bench.scenario;

import dev.tern.bench.service.BenchMessages;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * {@code unary}: 1 KiB request, 1 KiB response, on one warm connection: sequentially, then 16 calls
 * in flight at once. Records latency histograms and, for the sequential calls, the RFC 3393 delay
 * variation of the response's one-way delay.
 */
final class UnaryScenario {
  static final String NAME = "unary";
  static final int BYTES = 1024;
  static final int CONCURRENCY = 16;

  private UnaryScenario() {}

  static void run(int rep, ClientContext ctx) throws Exception {
    ManagedChannel ch = ctx.newChannel();
    try {
      Calls.unary(ch, CallOptions.DEFAULT, BYTES, BYTES); // connection setup is the setup scenario's
      Histogram seq = Recorder.newHistogram();
      Ipdv ipdv = new Ipdv();
      for (int i = 0; i < ctx.config().unaryCalls(); i++) {
        long t0 = System.nanoTime();
        byte[] resp = Calls.unary(ch, CallOptions.DEFAULT, BYTES, BYTES);
        long t1 = System.nanoTime();
        seq.recordValue(Math.max(1, (t1 - t0) / 1000));
        ipdv.add(t1 - BenchMessages.serverSendNs(resp));
      }
      ctx.recorder().histogram(rep, NAME, "seq", seq);
      if (ipdv.count() > 0) {
        ctx.recorder().metric(rep, NAME, "ipdv_down_ms", ipdv.meanAbsNs() / 1e6);
      }
      ctx.coordinator().progress(NAME + " rep " + rep + " sequential p50 "
          + seq.getValueAtPercentile(50) / 1000.0 + " ms");
      ctx.recorder().histogram(rep, NAME, "c16", concurrent(ch, ctx.config().concurrentCalls()));
    } finally {
      ClientContext.close(ch);
    }
  }

  private static Histogram concurrent(ManagedChannel ch, int total) throws Exception {
    Histogram h = Recorder.newHistogram();
    AtomicInteger left = new AtomicInteger(total);
    ExecutorService pool = Executors.newFixedThreadPool(CONCURRENCY);
    try {
      List<Future<?>> lanes = new ArrayList<>();
      for (int i = 0; i < CONCURRENCY; i++) {
        lanes.add(pool.submit(() -> {
          while (left.getAndDecrement() > 0) {
            long t0 = System.nanoTime();
            Calls.unary(ch, CallOptions.DEFAULT, BYTES, BYTES);
            long us = Math.max(1, (System.nanoTime() - t0) / 1000);
            synchronized (h) {
              h.recordValue(us);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : lanes) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return h;
  }
}
