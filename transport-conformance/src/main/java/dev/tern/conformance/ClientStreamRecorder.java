package dev.tern.conformance;

import dev.tern.rpc.spi.ClientStreamListener;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** Records a client stream's events for the suite to wait on and assert. */
public final class ClientStreamRecorder implements ClientStreamListener {
  /** A close: status and trailers. */
  public static final class Closed {
    /** The status the stream closed with. */
    public final Status status;
    /** The trailers. */
    public final Metadata trailers;

    Closed(Status status, Metadata trailers) {
      this.status = status;
      this.trailers = trailers;
    }
  }

  private final CallbackChecker checker;
  /** Response headers, once received. */
  public final CompletableFuture<Metadata> headers = new CompletableFuture<>();
  /** The close, once received. */
  public final CompletableFuture<Closed> closed = new CompletableFuture<>();
  private final BlockingQueue<ByteBuffer> messages = new LinkedBlockingQueue<>();
  private final Semaphore ready = new Semaphore(0);
  private volatile boolean heardFromServer;

  ClientStreamRecorder(List<String> violations) {
    this.checker = new CallbackChecker("client stream", violations);
  }

  @Override
  public void onHeaders(Metadata md) {
    checker.enter("onHeaders");
    heardFromServer = true;
    try {
      headers.complete(md);
    } finally {
      checker.exit();
    }
  }

  @Override
  public void onMessage(ByteBuffer message) {
    checker.enter("onMessage");
    heardFromServer = true;
    try {
      messages.add(message);
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
  public void onClose(Status status, Metadata trailers) {
    checker.enter("onClose");
    try {
      checker.end("onClose");
      closed.complete(new Closed(status, trailers));
    } finally {
      checker.exit();
    }
  }

  /** The next message, or null if none arrives within {@code timeout}. */
  public ByteBuffer nextMessage(Duration timeout) throws InterruptedException {
    return messages.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Whether the server's headers or a message arrived (the stream was open, not refused). */
  boolean heardFromServer() {
    return heardFromServer;
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
