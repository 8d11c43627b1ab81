package dev.tern.interop;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Records a response stream for the interop cases, with bounded waits. */
final class StreamRecorder<T> implements StreamObserver<T> {
  private static final long WAIT_SECONDS = 30;

  private final List<T> messages = new ArrayList<>();
  private final List<CompletableFuture<T>> messageWaiters = new ArrayList<>();
  private final CompletableFuture<Status> done = new CompletableFuture<>();

  @Override
  public void onNext(T value) {
    CompletableFuture<T> waiter;
    synchronized (this) {
      messages.add(value);
      waiter = waiterFor(messages.size() - 1);
    }
    waiter.complete(value);
  }

  @Override
  public void onError(Throwable t) {
    done.complete(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    done.complete(Status.OK);
  }

  private synchronized CompletableFuture<T> waiterFor(int index) {
    while (messageWaiters.size() <= index) {
      messageWaiters.add(new CompletableFuture<>());
    }
    return messageWaiters.get(index);
  }

  /** Waits for message {@code index} (0-based); fails if the call ends without it. */
  T awaitMessage(int index) throws InterruptedException, TimeoutException {
    CompletableFuture<T> waiter = waiterFor(index);
    try {
      CompletableFuture.anyOf(waiter, done).get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    }
    if (!waiter.isDone()) {
      throw new AssertionError("response #" + index + " never came; the call ended with " + done.getNow(null));
    }
    return waiter.join();
  }

  /** Waits for the call to end with OK and returns its messages. */
  List<T> awaitSuccess() throws InterruptedException, TimeoutException, ExecutionException {
    Status status = done.get(WAIT_SECONDS, TimeUnit.SECONDS);
    if (!status.isOk()) {
      throw new AssertionError("expected OK, got " + status, status.getCause());
    }
    synchronized (this) {
      return new ArrayList<>(messages);
    }
  }

  /** Waits for the call to end with an error and returns its status. */
  Status awaitFailure() throws InterruptedException, TimeoutException, ExecutionException {
    Status status = done.get(WAIT_SECONDS, TimeUnit.SECONDS);
    if (status.isOk()) {
      throw new AssertionError("expected an error, the call ended with OK");
    }
    return status;
  }
}
