package dev.tern.bench.scenario;

import dev.tern.bench.service.BenchMessages;
import dev.tern.bench.service.BenchService;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.stub.ClientCalls;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/** Blocking helpers over {@link BenchService}'s methods. */
final class Calls {
  private Calls() {}

  /** One unary exchange; returns the response. Without a deadline in {@code opts} it gets 120 s. */
  static byte[] unary(Channel ch, CallOptions opts, int requestBytes, int responseBytes) {
    CallOptions o = opts.getDeadline() == null ? opts.withDeadlineAfter(120, TimeUnit.SECONDS) : opts;
    return ClientCalls.blockingUnaryCall(ch, BenchService.UNARY, o,
        BenchMessages.unaryRequest(requestBytes, responseBytes, System.nanoTime()));
  }

  /** Bytes the server committed to download {@code callId}, or -1 if it never saw it. */
  static long committed(Channel ch, long callId) {
    byte[] r = ClientCalls.blockingUnaryCall(ch, BenchService.STATS,
        CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), BenchMessages.longMessage(callId));
    return ByteBuffer.wrap(r).getLong(0);
  }
}
