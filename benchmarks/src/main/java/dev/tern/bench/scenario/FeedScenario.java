package dev.tern.bench.scenario;

import dev.tern.bench.service.BenchMessages;
import dev.tern.bench.service.BenchService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * {@code feed}: the mobile feed screen. Six low-priority image downloads of 30-200 KiB and one urgent
 * API call (2 KiB request, 8 KiB response) start together, the images a moment first; when the API answer arrives the user
 * scrolls on and images 1, 3 and 5 are cancelled. Records API latency and completion times of the
 * images kept. A kept image still loading after {@code capSeconds} is cut by its deadline and
 * counted in {@code images_capped}, not timed.
 *
 * <p>Each repetition ends with a cancel screen: the same start, but when the API answer arrives
 * every image still loading is cancelled at once. Nothing else is loading then, so the server
 * payload that crosses the link after the cancel reached the server belongs to the cancelled
 * images: {@code bytes_after_cancel_per_image} is that, per image, from the packet log ({@link
 * CancelWaste}; labs with a log only). The window closes when a small call made after the cancels
 * comes back, which over TCP also waits out what the server's socket buffer still held. {@code
 * bytes_committed_after_cancel_per_image} is what the server's handler wrote to those images beyond
 * what the client had received when it cancelled: what the application handed over, not what the
 * transport sent.
 */
final class FeedScenario {
  static final String NAME = "feed";
  static final int API_REQUEST = 2048;
  static final int API_RESPONSE = 8192;
  static final int IMAGES = 6;
  static final int MIN_IMAGE = 30 * 1024;
  static final int MAX_IMAGE = 200 * 1024;
  static final int CHUNK = 16 * 1024;

  private FeedScenario() {}

  static void run(int rep, ClientContext ctx) throws Exception {
    ManagedChannel ch = ctx.newChannel();
    SplittableRandom random = new SplittableRandom(ctx.config().seed() * 7919 + rep);
    Histogram api = Recorder.newHistogram();
    Histogram images = Recorder.newHistogram();
    int imagesCapped = 0;
    try {
      Calls.unary(ch, CallOptions.DEFAULT, 1024, 1024); // a warm connection: setup is measured apart
      for (int s = 0; s < ctx.config().screens(); s++) {
        Screen screen = new Screen(ch, ctx, random);
        screen.run(api, images, ctx.config().capSeconds(), -1);
        imagesCapped += screen.capped;
      }
      Screen last = new Screen(ch, ctx, random);
      last.run(api, images, ctx.config().capSeconds(), rep);
      double committedBeyond = 0;
      int cancelled = 0;
      for (int i = 0; i < IMAGES; i++) {
        if (last.receivedAtCancel[i] >= 0) {
          long committed = Calls.committed(ch, last.callIds[i]);
          committedBeyond += Math.max(0, committed - last.receivedAtCancel[i]);
          cancelled++;
        }
      }
      ctx.recorder().histogram(rep, NAME, "api", api);
      ctx.recorder().histogram(rep, NAME, "image", images);
      ctx.recorder().metric(rep, NAME, "cancelled_images", cancelled);
      ctx.recorder().metric(rep, NAME, "images_capped", imagesCapped);
      ctx.recorder().metric(rep, NAME, "bytes_committed_after_cancel_per_image",
          cancelled == 0 ? 0 : committedBeyond / cancelled);
      ctx.coordinator().progress(NAME + " rep " + rep + " api max " + api.getMaxValue() / 1000.0 + " ms");
    } finally {
      ClientContext.close(ch);
    }
  }

  /** One screen: the API call and six images, started together. */
  private static final class Screen {
    final ManagedChannel ch;
    final ClientContext ctx;
    final long[] callIds = new long[IMAGES];
    final int[] sizes = new int[IMAGES];
    final long[] receivedAtCancel = new long[IMAGES];
    int capped;

    Screen(ManagedChannel ch, ClientContext ctx, SplittableRandom random) {
      this.ch = ch;
      this.ctx = ctx;
      for (int i = 0; i < IMAGES; i++) {
        sizes[i] = MIN_IMAGE + random.nextInt(MAX_IMAGE - MIN_IMAGE + 1);
        callIds[i] = random.nextLong() | 1; // never 0: 0 means "do not track"
        receivedAtCancel[i] = -1;
      }
    }

    /**
     * Runs the screen. {@code cancelRep} < 0: images 1, 3 and 5 are cancelled and the others timed;
     * otherwise every image is cancelled at once, inside repetition {@code cancelRep}'s cancel window.
     */
    void run(Histogram api, Histogram images, int capSeconds, int cancelRep) throws Exception {
      boolean cancelAll = cancelRep >= 0;
      CallOptions high = ctx.stack().withPriority(CallOptions.DEFAULT, 0, false);
      CallOptions low = ctx.stack().withPriority(CallOptions.DEFAULT, 6, true);
      CountDownLatch kept = new CountDownLatch(cancelAll ? 0 : IMAGES / 2);
      Image[] obs = new Image[IMAGES];
      long t0 = System.nanoTime();
      // The images go first: the API call must overtake bytes already queued, which is what priority is for.
      for (int i = 0; i < IMAGES; i++) {
        obs[i] = new Image(t0, i % 2 == 0 && !cancelAll ? kept : null);
        ClientCalls.asyncServerStreamingCall(ch.newCall(BenchService.DOWNLOAD, low.withDeadlineAfter(
            capSeconds, TimeUnit.SECONDS)), BenchMessages.downloadRequest(sizes[i], CHUNK, callIds[i]), obs[i]);
      }
      long apiStart = System.nanoTime();
      // The urgent call is what the screen waits for: it gets three times the images' cap.
      var apiFuture = ClientCalls.futureUnaryCall(ch.newCall(BenchService.UNARY, high.withDeadlineAfter(
          3L * capSeconds, TimeUnit.SECONDS)), BenchMessages.unaryRequest(API_REQUEST, API_RESPONSE, apiStart));
      apiFuture.get(3L * capSeconds + 5, TimeUnit.SECONDS);
      api.recordValue(Math.max(1, (System.nanoTime() - apiStart) / 1000));
      if (cancelAll) {
        ctx.coordinator().openCancelWindow(cancelRep);
        for (int i = 0; i < IMAGES; i++) {
          receivedAtCancel[i] = obs[i].cancel();
        }
        int loading = 0;
        for (long got : receivedAtCancel) {
          loading += got >= 0 ? 1 : 0;
        }
        Calls.unary(ch, high, 1, 1); // comes back after what the server sent before it
        ctx.coordinator().closeCancelWindow(cancelRep, loading);
        return;
      }
      for (int i = 1; i < IMAGES; i += 2) {
        receivedAtCancel[i] = obs[i].cancel();
      }
      // Each image carries a deadline of capSeconds: one still loading then is cut and counted as capped.
      if (!kept.await(capSeconds + 5L, TimeUnit.SECONDS)) {
        throw new IllegalStateException("kept images did not end within " + (capSeconds + 5) + " s of their deadline");
      }
      for (int i = 0; i < IMAGES; i += 2) {
        if (obs[i].error != null
            && Status.fromThrowable(obs[i].error).getCode() == Status.Code.DEADLINE_EXCEEDED) {
          capped++;
          continue;
        }
        if (obs[i].error != null) {
          throw new IllegalStateException("image " + i + " failed: " + obs[i].error);
        }
        images.recordValue(Math.max(1, (obs[i].doneNs - t0) / 1000));
      }
    }
  }

  /** Counts an image's bytes; can cancel it and say how much had arrived. */
  private static final class Image implements ClientResponseObserver<byte[], byte[]> {
    final long t0;
    final CountDownLatch done;
    final AtomicLong received = new AtomicLong();
    volatile ClientCallStreamObserver<byte[]> call;
    volatile boolean finished;
    volatile long doneNs;
    volatile Throwable error;

    Image(long t0, CountDownLatch done) {
      this.t0 = t0;
      this.done = done;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requestStream) {
      call = requestStream;
    }

    @Override
    public void onNext(byte[] chunk) {
      received.addAndGet(chunk.length);
    }

    @Override
    public void onError(Throwable t) {
      if (Status.fromThrowable(t).getCode() != Status.Code.CANCELLED) {
        error = t;
      }
      finish();
    }

    @Override
    public void onCompleted() {
      finish();
    }

    private void finish() {
      doneNs = System.nanoTime();
      finished = true;
      if (done != null) {
        done.countDown();
      }
    }

    /** Cancels the image; returns the bytes received by then, or -1 if it had already finished. */
    long cancel() {
      if (finished) {
        return -1;
      }
      long got = received.get();
      call.cancel("user scrolled on", null);
      return got;
    }
  }
}
