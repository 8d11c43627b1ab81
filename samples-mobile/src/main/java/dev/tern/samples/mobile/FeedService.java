package dev.tern.samples.mobile;

import dev.tern.samples.mobile.feed.FeedGrpc;
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
