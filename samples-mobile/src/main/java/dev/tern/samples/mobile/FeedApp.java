package dev.tern.samples.mobile;

import dev.tern.rpc.Priority;
import dev.tern.rpc.TernCallOptions;
import dev.tern.rpc.TernChannels;
import dev.tern.samples.mobile.feed.Chunk;
import dev.tern.samples.mobile.feed.FeedGrpc;
import dev.tern.samples.mobile.feed.ImageRequest;
import dev.tern.samples.mobile.feed.Page;
import dev.tern.samples.mobile.feed.PageRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The feed screen of a phone app: the API call first and most urgent, then the images of the
 * items on screen, streamed at a low urgency and incrementally (RFC 9218), a pull-to-refresh (the
 * API call again, urgent) while they stream, and the images the user scrolls past cancelled before
 * they finish (half-way through the first image). Each call's line says which transport carried it,
 * why (in brackets), and how long it took.
 */
public final class FeedApp {
  /** Images on the first screen. */
  static final int IMAGES = 6;
  /** Images still on screen after the user scrolls; the others are cancelled. */
  static final int SEEN = 2;
  /** Each image's size. */
  static final int IMAGE_BYTES = 96 << 10;

  private final ManagedChannel channel;
  private final PrintStream out;
  private final String label;
  private final long start;

  /**
   * An app screen on {@code channel}.
   *
   * @param channel the app's channel, just created
   * @param out where each call's line goes
   * @param label the prefix of each line
   * @param start when the channel was created ({@link System#nanoTime()})
   */
  public FeedApp(ManagedChannel channel, PrintStream out, String label, long start) {
    this.channel = channel;
    this.out = out;
    this.label = label;
    this.start = start;
  }

  /** One image stream and what it received. */
  private final class Image implements ClientResponseObserver<ImageRequest, Chunk> {
    final long id;
    final long began = System.nanoTime();
    final AtomicInteger received = new AtomicInteger();
    final CountDownLatch ended = new CountDownLatch(1);
    /** Counted down once half the image is here (or it ended). */
    final CountDownLatch halfway = new CountDownLatch(1);
    final AtomicReference<Status> status = new AtomicReference<>();
    volatile long endedNanos;
    volatile ClientCallStreamObserver<ImageRequest> call;
    final CountDownLatch firstChunk;

    Image(long id, CountDownLatch firstChunk) {
      this.id = id;
      this.firstChunk = firstChunk;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<ImageRequest> requestStream) {
      call = requestStream;
    }

    @Override
    public void onNext(Chunk chunk) {
      if (received.addAndGet(chunk.getData().size()) >= IMAGE_BYTES / 2) {
        halfway.countDown();
      }
      firstChunk.countDown();
    }

    @Override
    public void onError(Throwable t) {
      end(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      end(Status.OK);
    }

    private void end(Status s) {
      endedNanos = System.nanoTime();
      status.set(s);
      ended.countDown();
      halfway.countDown();
    }
  }

  /**
   * Runs the screen.
   *
   * @return the number of calls that failed (a cancelled image is not a failure)
   * @throws InterruptedException if interrupted while waiting for a call
   */
  public int run() throws InterruptedException {
    int failed = 0;
    FeedGrpc.FeedBlockingStub api = FeedGrpc.newBlockingStub(channel)
        .withOption(TernCallOptions.PRIORITY, Priority.of(Priority.MOST_URGENT, false));
    long t0 = System.nanoTime();
    Page page;
    try {
      page = api.withDeadlineAfter(20, TimeUnit.SECONDS).latest(PageRequest.newBuilder().setSize(20).build());
    } catch (RuntimeException e) {
      out.println(label + ": Latest failed: " + Status.fromThrowable(e));
      return 1;
    }
    out.printf(Locale.ROOT, "%s: Latest (urgency 0) over %s: %d items in %d ms, %d ms after the channel was made%n",
        label, transport(), page.getItemsCount(), ms(System.nanoTime() - t0), ms(System.nanoTime() - start));
    out.println(label + ": why " + TernChannels.selectionReason(channel));

    // The images of the items on screen: less urgent than the API, sent incrementally.
    FeedGrpc.FeedStub images = FeedGrpc.newStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS)
        .withOption(TernCallOptions.PRIORITY, Priority.of(5, true));
    CountDownLatch firstChunk = new CountDownLatch(1);
    List<Image> screen = new ArrayList<>();
    for (int i = 0; i < IMAGES; i++) {
      Image image = new Image(page.getItems(i).getId(), firstChunk);
      screen.add(image);
      images.image(ImageRequest.newBuilder().setId(image.id).setBytes(IMAGE_BYTES).build(), image);
    }
    firstChunk.await(20, TimeUnit.SECONDS);

    // Pull to refresh while the images stream: the API call goes first.
    int streaming = streaming(screen);
    long t1 = System.nanoTime();
    try {
      Page again = api.withDeadlineAfter(20, TimeUnit.SECONDS).latest(PageRequest.newBuilder().setSize(20).build());
      out.printf(Locale.ROOT, "%s: Latest again (urgency 0, sent while %d images streamed) over %s: %d items in %d ms%n",
          label, streaming, transport(), again.getItemsCount(), ms(System.nanoTime() - t1));
    } catch (RuntimeException e) {
      out.println(label + ": Latest again failed: " + Status.fromThrowable(e));
      failed++;
    }

    // Half-way through the first image the user scrolls on: the images that left the screen are
    // cancelled, and what is left of the link goes to the ones still on it.
    screen.get(0).halfway.await(60, TimeUnit.SECONDS);
    for (int i = SEEN; i < IMAGES; i++) {
      Image image = screen.get(i);
      if (image.ended.getCount() > 0) {
        image.call.cancel("scrolled off screen", null);
      }
    }
    for (Image image : screen) {
      if (!image.ended.await(30, TimeUnit.SECONDS)) {
        out.println(label + ": image " + image.id + " did not end");
        failed++;
        continue;
      }
      Status s = image.status.get();
      long took = ms(image.endedNanos - image.began);
      if (s.isOk()) {
        out.printf(Locale.ROOT, "%s: image %d (urgency 5, incremental) over %s: %d bytes in %d ms%n",
            label, image.id, transport(), image.received.get(), took);
      } else if (s.getCode() == Status.Code.CANCELLED && screen.indexOf(image) >= SEEN) {
        out.printf(Locale.ROOT, "%s: image %d cancelled after %d ms, scrolled off screen: %d of %d bytes received%n",
            label, image.id, took, image.received.get(), IMAGE_BYTES);
      } else {
        out.println(label + ": image " + image.id + " failed: " + s);
        failed++;
      }
    }
    return failed;
  }

  private static int streaming(List<Image> screen) {
    int n = 0;
    for (Image i : screen) {
      n += i.ended.getCount() > 0 ? 1 : 0;
    }
    return n;
  }

  /**
   * The transport that carried the call and, in brackets, why: the first clause of the channel's
   * selection reason (the whole reason is printed once, after the first call).
   */
  private String transport() {
    String transport = TernChannels.selectedTransport(channel);
    String why = TernChannels.selectionReason(channel);
    if (why == null) {
      return transport;
    }
    int colon = why.indexOf(": ");
    int semicolon = why.indexOf(';');
    String first = why.substring(colon < 0 ? 0 : colon + 2, semicolon < 0 ? why.length() : semicolon);
    return transport + " (" + first + ")";
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
