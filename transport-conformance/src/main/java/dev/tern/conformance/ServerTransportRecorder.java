package dev.tern.conformance;

import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransportListener;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Receives a server transport's streams: queues them for the test to drive, or (in echo mode)
 * answers each request message with itself and closes with OK after the half-close.
 */
public final class ServerTransportRecorder implements ServerTransportListener {
  /** Completes when the server transport reports termination. */
  public final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final BlockingQueue<ServerStreamRecorder> streams = new LinkedBlockingQueue<>();
  private final List<ServerStreamRecorder> all = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final List<String> violations;
  private volatile boolean echo;

  ServerTransportRecorder(List<String> violations) {
    this.violations = violations;
  }

  /** Answers every stream from now on by echoing its messages. */
  public void echoMode() {
    echo = true;
  }

  @Override
  public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
    if (terminated.isDone()) {
      violations.add("server transport: a stream arrived after serverTerminated");
    }
    if (echo) {
      return new Echo(stream);
    }
    ServerStreamRecorder r = new ServerStreamRecorder(stream, headers, violations);
    streams.add(r);
    all.add(r);
    return r;
  }

  @Override
  public void serverTerminated() {
    for (ServerStreamRecorder r : all) {
      if (!r.completed.isDone() && !r.cancelled.isDone()) {
        violations.add("server transport: serverTerminated before a stream's onComplete or onCancel");
      }
    }
    if (!terminated.complete(null)) {
      violations.add("server transport: serverTerminated called twice");
    }
  }

  /** The next stream the server accepted, or null if none within {@code timeout}. */
  public ServerStreamRecorder nextStream(Duration timeout) throws InterruptedException {
    return streams.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Echoes each message back and closes OK after the client half-closes. */
  private static final class Echo implements ServerStreamListener {
    private final ServerStream stream;
    private boolean headersSent;

    Echo(ServerStream stream) {
      this.stream = stream;
      stream.request(1);
    }

    @Override
    public void onMessage(ByteBuffer message) {
      if (!headersSent) {
        headersSent = true;
        stream.writeHeaders(new Metadata());
      }
      stream.writeMessage(message);
      stream.flush();
      stream.request(1);
    }

    @Override
    public void onHalfClose() {
      stream.close(Status.OK, new Metadata());
    }

    @Override
    public void onReady() {}

    @Override
    public void onComplete() {}

    @Override
    public void onCancel(Status status) {}
  }
}
