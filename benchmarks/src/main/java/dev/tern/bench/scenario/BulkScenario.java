package dev.tern.bench.scenario;

import dev.tern.bench.service.BenchMessages;
import dev.tern.bench.service.BenchService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code bulk}: one server-streaming download on a warm connection. Goodput as FIELD-NOTES.md
 * defines it (bytes received / (last receipt - first receipt)); the time from request to last byte;
 * and the RFC 3393 delay variation of the chunks' one-way delays. A download longer than the cap is
 * cut and reported with {@code capped = 1}. The download is bracketed in the emulator's packet log
 * so that the orchestrator can measure the steady-state goodput on the link's own clock ({@link
 * LinkGoodput}): the client's receipt times stall with its JVM.
 */
final class BulkScenario {
  static final String NAME = "bulk";
  static final int CHUNK = 32 * 1024;

  private BulkScenario() {}

  static void run(int rep, ClientContext ctx) throws Exception {
    ManagedChannel ch = ctx.newChannel();
    try {
      Calls.unary(ch, CallOptions.DEFAULT, 1024, 1024);
      long total = ctx.config().bulkBytes();
      Receiver r = new Receiver(total);
      ctx.coordinator().openDownloadWindow(rep);
      long t0 = System.nanoTime();
      ClientCalls.asyncServerStreamingCall(ch.newCall(BenchService.DOWNLOAD, CallOptions.DEFAULT),
          BenchMessages.downloadRequest(total, CHUNK, 0), r);
      boolean capped = !r.done.await(ctx.config().capSeconds(), TimeUnit.SECONDS);
      if (capped) {
        r.call.cancel("benchmark cap reached", null);
        r.done.await(10, TimeUnit.SECONDS);
      }
      ctx.coordinator().closeDownloadWindow(rep);
      if (!capped && r.error != null) {
        throw new IllegalStateException("download failed", r.error);
      }
      long bytes;
      long first;
      long last;
      double ipdvMs;
      synchronized (r) {
        bytes = r.bytes;
        first = r.firstNs;
        last = r.lastNs;
        ipdvMs = r.ipdv.meanAbsNs() / 1e6;
      }
      String s = NAME;
      ctx.recorder().metric(rep, s, "bytes", bytes);
      ctx.recorder().metric(rep, s, "capped", capped ? 1 : 0);
      if (bytes > 0 && last > first) {
        double goodput = (bytes - r.firstChunkBytes) * 8e9 / (last - first);
        ctx.recorder().metric(rep, s, "goodput_mbps", goodput / 1e6);
        ctx.recorder().metric(rep, s, "goodput_window_ms", (last - first) / 1e6);
        ctx.recorder().metric(rep, s, "completion_ms", (last - t0) / 1e6);
        ctx.recorder().metric(rep, s, "ipdv_ms", ipdvMs);
        ctx.coordinator().progress(NAME + " rep " + rep + " " + String.format(java.util.Locale.ROOT,
            "%.2f Mbit/s%s", goodput / 1e6, capped ? " (capped)" : ""));
      }
    } finally {
      ClientContext.close(ch);
    }
  }

  /** Counts a download's bytes and times. */
  private static final class Receiver implements ClientResponseObserver<byte[], byte[]> {
    final long total;
    final CountDownLatch done = new CountDownLatch(1);
    final Ipdv ipdv = new Ipdv();
    volatile ClientCallStreamObserver<byte[]> call;
    volatile Throwable error;
    long bytes;
    long firstNs;
    long firstChunkBytes;
    long lastNs;

    Receiver(long total) {
      this.total = total;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requestStream) {
      call = requestStream;
    }

    @Override
    public synchronized void onNext(byte[] chunk) {
      long now = System.nanoTime();
      if (bytes == 0) {
        firstNs = now;
        // Bytes of the first message arrived before the first receipt time: leave them out of the rate.
        firstChunkBytes = chunk.length;
      }
      bytes += chunk.length;
      lastNs = now;
      ipdv.add(now - BenchMessages.chunkSendNs(chunk));
    }

    @Override
    public void onError(Throwable t) {
      error = t;
      done.countDown();
    }

    @Override
    public void onCompleted() {
      done.countDown();
    }
  }
}
