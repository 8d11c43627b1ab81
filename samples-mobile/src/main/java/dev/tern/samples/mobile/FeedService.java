package dev.tern.samples.mobile;

import com.google.protobuf.ByteString;
import dev.tern.samples.mobile.feed.Chunk;
import dev.tern.samples.mobile.feed.FeedGrpc;
import dev.tern.samples.mobile.feed.ImageRequest;
import dev.tern.samples.mobile.feed.FollowRequest;
import dev.tern.samples.mobile.feed.HoldRequest;
import dev.tern.samples.mobile.feed.Item;
import dev.tern.samples.mobile.feed.Page;
import dev.tern.samples.mobile.feed.PageRequest;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The feed: a fixed set of items, newest first, made up from their number. */
public final class FeedService extends FeedGrpc.FeedImplBase {
  /** The longest {@code Hold}: an hour. */
  public static final int MAX_HOLD_MILLIS = 3_600_000;

  /** Answers held calls when their time is up. */
  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "feed-hold");
    t.setDaemon(true);
    return t;
  });

  /** The largest image. */
  public static final int MAX_IMAGE = 4 << 20;
  /** The size of an image's chunks. */
  public static final int CHUNK = 16 << 10;

  /** The most items one page holds. */
  public static final int MAX_PAGE = 100;

  /** Item {@code id}, the same every time it is asked for. */
  public static Item item(long id) {
    return Item.newBuilder().setId(id).setAuthor("author-" + (id % 7))
        .setText("post number " + id + " of the sample feed").build();
  }

  @Override
  public void latest(PageRequest request, StreamObserver<Page> out) {
    if (request.getSize() < 1 || request.getSize() > MAX_PAGE) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("a page holds 1 to " + MAX_PAGE
          + " items; asked for " + request.getSize()).asRuntimeException());
      return;
    }
    Page.Builder page = Page.newBuilder();
    for (int i = 0; i < request.getSize(); i++) {
      page.addItems(item(1_000 - i));
    }
    out.onNext(page.build());
    out.onCompleted();
  }

  @Override
  public void hold(HoldRequest request, StreamObserver<Item> out) {
    if (request.getMillis() < 0 || request.getMillis() > MAX_HOLD_MILLIS) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("a call is held 0 to " + MAX_HOLD_MILLIS
          + " ms; asked for " + request.getMillis()).asRuntimeException());
      return;
    }
    TIMER.schedule(() -> {
      out.onNext(item(1_000));
      out.onCompleted();
    }, request.getMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Streams the image in chunks as fast as the client takes them (flow control: onReadyHandler
   * runs whenever the stream has room); stops when the client cancels, as an app does for an
   * image scrolled off screen.
   */
  @Override
  public void image(ImageRequest request, StreamObserver<Chunk> out) {
    if (request.getBytes() < 1 || request.getBytes() > MAX_IMAGE) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("an image is 1 to " + MAX_IMAGE + " bytes; asked for "
          + request.getBytes()).asRuntimeException());
      return;
    }
    ServerCallStreamObserver<Chunk> call = (ServerCallStreamObserver<Chunk>) out;
    byte[] pattern = new byte[CHUNK];
    for (int i = 0; i < pattern.length; i++) {
      pattern[i] = (byte) (request.getId() + i);
    }
    ByteString full = ByteString.copyFrom(pattern);
    int[] sent = {0};
    // With a cancel handler set, grpc-java drops what is sent after the client cancelled instead
    // of throwing it back at the sender.
    call.setOnCancelHandler(() -> { });
    call.setOnReadyHandler(() -> {
      while (call.isReady() && sent[0] < request.getBytes() && !call.isCancelled()) {
        int n = Math.min(CHUNK, request.getBytes() - sent[0]);
        call.onNext(Chunk.newBuilder().setData(n == CHUNK ? full : full.substring(0, n)).build());
        sent[0] += n;
      }
      if (sent[0] == request.getBytes() && !call.isCancelled()) {
        sent[0]++; // completed once
        call.onCompleted();
      }
    });
  }

  @Override
  public void follow(FollowRequest request, StreamObserver<Item> out) {
    ServerCallStreamObserver<Item> call = (ServerCallStreamObserver<Item>) out;
    int count = request.getCount() <= 0 ? Integer.MAX_VALUE : request.getCount();
    // Sends as fast as the client takes them: onReadyHandler runs whenever the stream has room.
    int[] sent = {0};
    call.setOnReadyHandler(() -> {
      while (call.isReady() && sent[0] < count && !call.isCancelled()) {
        call.onNext(item(1_001 + sent[0]));
        sent[0]++;
      }
      if (sent[0] == count && !call.isCancelled()) {
        sent[0]++; // completed once
        call.onCompleted();
      }
    });
  }
}
