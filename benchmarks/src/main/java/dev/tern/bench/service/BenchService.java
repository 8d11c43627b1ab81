package dev.tern.bench.service;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The service every benchmark calls: unary echo of a chosen size, a server-streaming download, and
 * a statistics call that tells how many bytes the server committed to a download. Method
 * descriptors are written by hand with {@link ByteArrayMarshaller}; no protoc is involved.
 */
public final class BenchService {
  /** Service name on the wire. */
  public static final String SERVICE = "tern.bench.Bench";

  /** Unary: the request names the response size. */
  public static final MethodDescriptor<byte[], byte[]> UNARY = method("Unary", MethodDescriptor.MethodType.UNARY);
  /** Server streaming: the request names the total size and the chunk size. */
  public static final MethodDescriptor<byte[], byte[]> DOWNLOAD =
      method("Download", MethodDescriptor.MethodType.SERVER_STREAMING);
  /** Unary: bytes committed by the server to a download call id, and when it saw the cancel. */
  public static final MethodDescriptor<byte[], byte[]> STATS = method("Stats", MethodDescriptor.MethodType.UNARY);

  private final ConcurrentMap<Long, AtomicLongArray> downloads = new ConcurrentHashMap<>();

  private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(ByteArrayMarshaller.INSTANCE)
        .setResponseMarshaller(ByteArrayMarshaller.INSTANCE)
        .setIdempotent(type == MethodDescriptor.MethodType.UNARY)
        .build();
  }

  /** The service definition to register on any {@link io.grpc.ServerBuilder}. */
  public ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(UNARY, ServerCalls.asyncUnaryCall(this::unary))
        .addMethod(DOWNLOAD, ServerCalls.asyncServerStreamingCall(this::download))
        .addMethod(STATS, ServerCalls.asyncUnaryCall(this::stats))
        .build();
  }

  private void unary(byte[] request, StreamObserver<byte[]> out) {
    long recvNs = System.nanoTime();
    int size;
    try {
      size = BenchMessages.requestedResponseBytes(request);
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    if (size < 0 || size > BenchMessages.MAX_MESSAGE_BYTES) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("response size out of range: " + size).asRuntimeException());
      return;
    }
    out.onNext(BenchMessages.unaryResponse(size, recvNs, System.nanoTime()));
    out.onCompleted();
  }

  private void stats(byte[] request, StreamObserver<byte[]> out) {
    if (request.length < 8) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("stats request must be 8 bytes, was " + request.length)
          .asRuntimeException());
      return;
    }
    AtomicLongArray s = downloads.remove(ByteBuffer.wrap(request).getLong());
    long committed = s == null ? -1 : s.get(0);
    long cancelNs = s == null ? -1 : s.get(1);
    out.onNext(ByteBuffer.allocate(16).putLong(committed).putLong(cancelNs).array());
    out.onCompleted();
  }

  private void download(byte[] request, StreamObserver<byte[]> plainOut) {
    if (request.length < 20) {
      plainOut.onError(Status.INVALID_ARGUMENT.withDescription("download request must be 20 bytes, was "
          + request.length).asRuntimeException());
      return;
    }
    ByteBuffer req = ByteBuffer.wrap(request);
    long total = req.getLong();
    int chunk = req.getInt();
    long callId = req.getLong();
    if (total < 0 || chunk <= BenchMessages.CHUNK_HEADER || chunk > BenchMessages.MAX_MESSAGE_BYTES) {
      plainOut.onError(Status.INVALID_ARGUMENT.withDescription("bad download: total=" + total + " chunk=" + chunk)
          .asRuntimeException());
      return;
    }
    ServerCallStreamObserver<byte[]> out = (ServerCallStreamObserver<byte[]>) plainOut;
    AtomicLongArray stat = new AtomicLongArray(new long[] {0, -1});
    if (callId != 0) {
      downloads.put(callId, stat);
    }
    new Pump(out, total, chunk, stat).attach();
  }

  /** Writes a download while the call is ready, resuming from onReady: flow control is respected. */
  private static final class Pump implements Runnable {
    private final ServerCallStreamObserver<byte[]> out;
    private final long total;
    private final int chunk;
    private final AtomicLongArray stat;
    private long sent;
    private boolean done;

    Pump(ServerCallStreamObserver<byte[]> out, long total, int chunk, AtomicLongArray stat) {
      this.out = out;
      this.total = total;
      this.chunk = chunk;
      this.stat = stat;
    }

    void attach() {
      out.setOnCancelHandler(() -> {
        synchronized (this) {
          done = true;
          stat.set(1, System.nanoTime());
        }
      });
      out.setOnReadyHandler(this);
      run();
    }

    @Override
    public synchronized void run() {
      while (!done && out.isReady() && sent < total) {
        int n = (int) Math.min(chunk, total - sent);
        n = Math.max(n, BenchMessages.CHUNK_HEADER);
        out.onNext(BenchMessages.chunk(n, System.nanoTime()));
        sent += n;
        stat.set(0, sent);
      }
      if (!done && sent >= total) {
        done = true;
        out.onCompleted();
      }
    }
  }
}
