package dev.tern.bench.jmh;

import dev.tern.bench.service.BenchMessages;
import dev.tern.bench.service.BenchService;
import io.grpc.CallOptions;
import io.grpc.stub.ClientCalls;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Server-streaming throughput over loopback: one call downloads {@link #BYTES} in 32 KiB messages.
 * Operations per second times 8 MiB is the goodput.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LoopbackStreamingBenchmark {
  /** Bytes downloaded by one operation. */
  public static final long BYTES = 8L << 20;

  /** The stack: {@code grpc-netty} or a Tern transport name. */
  @Param({"grpc-netty"})
  public String transport;

  /**
   * {@code tls} (the default): every stack encrypts, grpc-netty and tcp with TLS as quic and udp
   * always do, so the cells compare like with like; {@code plaintext}: HTTP/2 over TCP without TLS
   * (how the sittings before 2026-12-07 ran).
   */
  @Param({"tls"})
  public String security;

  private LoopbackEndpoint endpoint;

  /** Starts the server and connects. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    endpoint = new LoopbackEndpoint(transport, "plaintext".equals(security));
    download();
  }

  /** Closes the channel and the server. */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    endpoint.close();
  }

  /** Downloads 8 MiB; returns the bytes received (checked against the size asked for). */
  @Benchmark
  public long download() {
    Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(endpoint.channel, BenchService.DOWNLOAD,
        CallOptions.DEFAULT, BenchMessages.downloadRequest(BYTES, 32 * 1024, 0));
    long n = 0;
    while (it.hasNext()) {
      n += it.next().length;
    }
    if (n != BYTES) {
      throw new IllegalStateException("downloaded " + n + " bytes, expected " + BYTES);
    }
    return n;
  }
}
