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
      Receiver r = new Receiver(total, ctx.config().linkDownBitsPerSecond());
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
        double goodput = (bytes - r.firstDeliveryBytes) * 8e9 / (last - first);
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

  /**
   * Counts a download's bytes and times. The goodput window opens at the end of the first delivery:
   * the first message and every message handed over with it. Over TCP a loss among the first
   * segments holds back the messages behind it (head-of-line blocking), and the retransmission
   * releases them all at once: their bytes crossed the link before the window opened, and counting
   * them would report more than the link can carry. A message belongs to the first delivery while
   * it follows the one before it sooner than half the time the link needs to carry it; on an
   * unshaped link only the first message does.
   */
  static final class Receiver implements ClientResponseObserver<byte[], byte[]> {
    final long total;
    final double linkBitsPerSecond;
    final CountDownLatch done = new CountDownLatch(1);
    final Ipdv ipdv = new Ipdv();
    volatile ClientCallStreamObserver<byte[]> call;
    volatile Throwable error;
    long bytes;
    long firstNs;
    long firstDeliveryBytes;
    boolean inFirstDelivery;
    long lastNs;

    Receiver(long total, double linkBitsPerSecond) {
      this.total = total;
      this.linkBitsPerSecond = linkBitsPerSecond;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requestStream) {
      call = requestStream;
    }

    @Override
    public synchronized void onNext(byte[] chunk) {
      long now = System.nanoTime();
      receive(chunk.length, now);
      ipdv.add(now - BenchMessages.chunkSendNs(chunk));
    }

    synchronized void receive(int length, long now) {
      if (bytes == 0) {
        firstNs = now;
        firstDeliveryBytes = length;
        inFirstDelivery = linkBitsPerSecond > 0;
      } else if (inFirstDelivery) {
        double carryNs = length * 8e9 / linkBitsPerSecond;
        if (now - lastNs < carryNs / 2) {
          firstNs = now;
          firstDeliveryBytes += length;
        } else {
          inFirstDelivery = false;
        }
      }
      bytes += length;
      lastNs = now;
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
