package dev.tern.conformance;

import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** A server stream handed to the suite, with its request headers and recorded events. */
public final class ServerStreamRecorder implements ServerStreamListener {
  /** The server's end of the stream. */
  public final ServerStream stream;
  /** The request headers the transport recreated. */
  public final RequestHeaders headers;
  /** Completes on {@code onHalfClose}. */
  public final CompletableFuture<Void> halfClosed = new CompletableFuture<>();
  /** Completes on {@code onComplete}. */
  public final CompletableFuture<Void> completed = new CompletableFuture<>();
  /** Completes on {@code onCancel} with its status. */
  public final CompletableFuture<Status> cancelled = new CompletableFuture<>();
  private final CallbackChecker checker;
  private final BlockingQueue<ByteBuffer> messages = new LinkedBlockingQueue<>();
  private final Semaphore ready = new Semaphore(0);

  ServerStreamRecorder(ServerStream stream, RequestHeaders headers, List<String> violations) {
    this.stream = stream;
    this.headers = headers;
    this.checker = new CallbackChecker("server stream " + headers.fullMethodName(), violations);
  }

  @Override
  public void onMessage(ByteBuffer message) {
    checker.enter("onMessage");
    try {
      if (halfClosed.isDone()) {
        checker.violation("onMessage after onHalfClose");
      }
      messages.add(message);
    } finally {
      checker.exit();
    }
  }

  @Override
  public void onHalfClose() {
    checker.enter("onHalfClose");
    try {
      halfClosed.complete(null);
    } finally {
      checker.exit();
    }
  }

  @Override
  public void onReady() {
    checker.enter("onReady");
    try {
      ready.release();
    } finally {
      checker.exit();
    }
  }

  @Override
  public void onComplete() {
    checker.enter("onComplete");
    try {
      checker.end("onComplete");
      completed.complete(null);
    } finally {
      checker.exit();
    }
  }

  @Override
  public void onCancel(Status status) {
    checker.enter("onCancel");
    try {
      checker.end("onCancel");
      cancelled.complete(status);
    } finally {
      checker.exit();
    }
  }

  /** The next request message, or null if none arrives within {@code timeout}. */
  public ByteBuffer nextMessage(Duration timeout) throws InterruptedException {
    return messages.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Messages received and not yet taken. */
  public int pendingMessages() {
    return messages.size();
  }

  /** Waits for an {@code onReady} call; false if none came within {@code timeout}. */
  public boolean awaitReady(Duration timeout) throws InterruptedException {
    return ready.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }
}
