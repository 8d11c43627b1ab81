package dev.tern.bench.jmh;

import dev.tern.bench.service.BenchMessages;
import dev.tern.bench.service.BenchService;
import io.grpc.CallOptions;
import io.grpc.stub.ClientCalls;
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
 * One blocking unary call, 1 KiB each way, over loopback: the per-call cost of each stack. Run with
 * {@link JmhMain} to compare every transport on the class path with stock grpc-netty in one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LoopbackUnaryBenchmark {
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
  private CallOptions options;

  /** Starts the server and connects. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    endpoint = new LoopbackEndpoint(transport, "plaintext".equals(security));
    options = CallOptions.DEFAULT;
    unary(); // connect before measuring
  }

  /** Closes the channel and the server. */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    endpoint.close();
  }

  /** One call: 1 KiB request, 1 KiB response. */
  @Benchmark
  public byte[] unary() {
    return ClientCalls.blockingUnaryCall(endpoint.channel, BenchService.UNARY, options,
        BenchMessages.unaryRequest(1024, 1024, 0));
  }
}
