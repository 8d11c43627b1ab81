package dev.tern.transport.tcp;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransportListener;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Listeners that record what a transport tells them, for tests to wait on. */
final class Recorders {
  static final long TIMEOUT_SECONDS = 10;

  private Recorders() {}

  static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  static String utf8(ByteBuffer b) {
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static <T> T take(BlockingQueue<T> queue, String what) throws InterruptedException {
    T value = queue.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (value == null) {
      throw new AssertionError("timed out waiting for " + what);
    }
    return value;
  }

  /** Records one client transport's lifecycle. */
  static final class Transport implements ClientTransport.Listener {
    final CompletableFuture<ConnectionInfo> ready = new CompletableFuture<>();
    final CompletableFuture<Status> shutdown = new CompletableFuture<>();
    final CompletableFuture<Void> terminated = new CompletableFuture<>();

    @Override public void transportReady(ConnectionInfo info) { ready.complete(info); }
    @Override public void transportShutdown(Status status) { shutdown.complete(status); }
    @Override public void transportTerminated() { terminated.complete(null); }
  }

  /** Records one client stream's events. */
  static final class Client implements ClientStreamListener {
    final CompletableFuture<Metadata> headers = new CompletableFuture<>();
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();
    final CompletableFuture<Metadata> trailers = new CompletableFuture<>();

    @Override public void onHeaders(Metadata h) { headers.complete(h); }
    @Override public void onMessage(ByteBuffer message) { messages.add(utf8(message)); }
    @Override public void onReady() {}
    @Override public void onClose(Status status, Metadata t) {
      trailers.complete(t);
      closed.complete(status);
    }
  }

  /** A server that hands each new stream and its headers to the test. */
  static final class Server implements ServerTransportListener {
    final BlockingQueue<ServerCallRecord> calls = new LinkedBlockingQueue<>();
    final CompletableFuture<Void> terminated = new CompletableFuture<>();

    @Override
    public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
      ServerCallRecord record = new ServerCallRecord(stream, headers);
      calls.add(record);
      return record;
    }

    @Override
    public void serverTerminated() {
      terminated.complete(null);
    }
  }

  /** One server stream, its headers and its events. */
  static final class ServerCallRecord implements ServerStreamListener {
    final ServerStream stream;
    final RequestHeaders headers;
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Void> halfClosed = new CompletableFuture<>();
    final CompletableFuture<Void> completed = new CompletableFuture<>();
    final CompletableFuture<Status> cancelled = new CompletableFuture<>();

    ServerCallRecord(ServerStream stream, RequestHeaders headers) {
      this.stream = stream;
      this.headers = headers;
    }

    @Override public void onMessage(ByteBuffer message) { messages.add(utf8(message)); }
    @Override public void onHalfClose() { halfClosed.complete(null); }
    @Override public void onReady() {}
    @Override public void onComplete() { completed.complete(null); }
    @Override public void onCancel(Status status) { cancelled.complete(status); }
  }
}
