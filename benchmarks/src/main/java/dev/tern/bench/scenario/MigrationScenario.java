package dev.tern.bench.scenario;

import dev.tern.bench.service.BenchMessages;
import dev.tern.bench.service.BenchService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code migration}: a {@code bulk} download during which the client's address changes. Once a
 * third of the bytes has arrived the orchestrator moves the client namespace to a new address
 * ({@link ClientAddressMove}); the download then has {@code capSeconds} to finish. Reports whether
 * the call survived, the longest gap in received bytes (stall), and whether a new connection from
 * the new address works (it must, or the move itself was broken).
 */
final class MigrationScenario {
  static final String NAME = "migration";

  private MigrationScenario() {}

  static void run(int rep, ClientContext ctx) throws Exception {
    ManagedChannel ch = ctx.newChannel();
    try {
      Calls.unary(ch, CallOptions.DEFAULT, 1024, 1024);
      long total = ctx.config().migrationBytes();
      Receiver r = new Receiver(total);
      long t0 = System.nanoTime();
      ClientCalls.asyncServerStreamingCall(ch.newCall(BenchService.DOWNLOAD, CallOptions.DEFAULT),
          BenchMessages.downloadRequest(total, BulkScenario.CHUNK, 0), r);
      if (!r.third.await(ctx.config().capSeconds(), TimeUnit.SECONDS)) {
        r.call.cancel("a third of the download did not arrive in time", null);
        throw new IllegalStateException("a third of the download did not arrive within " + ctx.config().capSeconds()
            + " s, before any address change");
      }
      long moveStart = System.nanoTime();
      long bytesBeforeMove;
      synchronized (r) {
        bytesBeforeMove = r.bytes;
      }
      ctx.coordinator().moveClientAddress();
      long moveEnd = System.nanoTime();
      boolean finished = awaitOrStall(r, moveEnd, ctx.config());
      long endNs = System.nanoTime();
      if (!finished) {
        r.call.cancel("stalled after the address change", null);
        r.done.await(10, TimeUnit.SECONDS);
      }
      long bytes;
      long stallNs;
      synchronized (r) {
        bytes = r.bytes;
        stallNs = r.gaps.longestNs(endNs, finished);
      }
      boolean survived = finished && r.error == null && bytes == total;
      String s = NAME;
      ctx.recorder().metric(rep, s, "survived", survived ? 1 : 0);
      ctx.recorder().metric(rep, s, "call_failed", survived ? 0 : 1);
      ctx.recorder().metric(rep, s, "stalled", finished ? 0 : 1);
      ctx.recorder().metric(rep, s, "stall_ms", stallNs / 1e6);
      ctx.recorder().metric(rep, s, "move_ms", (moveEnd - moveStart) / 1e6);
      ctx.recorder().metric(rep, s, "bytes_after_move", bytes - bytesBeforeMove);
      if (survived) {
        ctx.recorder().metric(rep, s, "completion_ms", (r.lastNs() - t0) / 1e6);
      }
      boolean newConnection = newConnectionWorks(ctx);
      ctx.recorder().metric(rep, s, "new_connection_ok", newConnection ? 1 : 0);
      String outcome = survived ? "survived" : !finished ? "stalled (cut)"
          : "failed: " + (r.error == null ? "short by " + (total - bytes) + " bytes" : Status.fromThrowable(r.error));
      ctx.coordinator().progress(String.format(Locale.ROOT, "%s rep %d: %s; longest stall %.0f ms; new connection %s",
          NAME, rep, outcome, stallNs / 1e6, newConnection ? "works" : "FAILED"));
    } finally {
      ClientContext.close(ch);
    }
  }

  /**
   * Waits for the download to end, but gives up once nothing has arrived for {@code stallSeconds}
   * (counted from the move or the last arrival after it) or {@code capSeconds} have passed since
   * the move: a connection that cannot follow the client never recovers, and waiting the whole cap
   * for it only costs time. Returns whether the download ended (completed or failed).
   */
  private static boolean awaitOrStall(Receiver r, long moveEndNs, ClientConfig config) throws InterruptedException {
    long stallNs = TimeUnit.SECONDS.toNanos(config.stallSeconds());
    long capEnd = moveEndNs + TimeUnit.SECONDS.toNanos(config.capSeconds());
    while (true) {
      if (r.done.await(100, TimeUnit.MILLISECONDS)) {
        return true;
      }
      long now = System.nanoTime();
      long last;
      synchronized (r) {
        last = r.gaps.any() ? Math.max(r.gaps.lastNs(), moveEndNs) : moveEndNs;
      }
      if (now - last >= stallNs || now >= capEnd) {
        return false;
      }
    }
  }

  private static boolean newConnectionWorks(ClientContext ctx) {
    ManagedChannel ch = ctx.newChannel();
    try {
      Calls.unary(ch, CallOptions.DEFAULT.withDeadlineAfter(ctx.config().capSeconds(), TimeUnit.SECONDS), 1024, 1024);
      return true;
    } catch (RuntimeException e) {
      ctx.coordinator().progress(NAME + ": new connection after the move failed: " + e);
      return false;
    } finally {
      ClientContext.close(ch);
    }
  }

  /** Counts a download's bytes and the gaps between their arrivals. */
  private static final class Receiver implements ClientResponseObserver<byte[], byte[]> {
    final long total;
    final CountDownLatch third = new CountDownLatch(1);
    final CountDownLatch done = new CountDownLatch(1);
    final ArrivalGaps gaps = new ArrivalGaps();
    volatile ClientCallStreamObserver<byte[]> call;
    volatile Throwable error;
    long bytes;

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
      bytes += chunk.length;
      gaps.arrival(now);
      if (bytes >= total / 3) {
        third.countDown();
      }
    }

    synchronized long lastNs() {
      return gaps.lastNs();
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
