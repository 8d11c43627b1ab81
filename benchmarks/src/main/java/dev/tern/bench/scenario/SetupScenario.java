package dev.tern.bench.scenario;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import org.HdrHistogram.Histogram;

/**
 * {@code setup}: the latency of the first 1 KiB call on a new connection, from creating the channel
 * to the reply. {@code cold} is the client process's first contact with the server (the
 * orchestrator starts a client process per repetition and runs this scenario first, so no TLS
 * session or 0-RTT ticket exists yet); {@code resumed} is a second new connection right after, which
 * a transport with session resumption (0-RTT) can shorten with the ticket the cold one received;
 * the others set it up from scratch again. The emulator's packet log counts the round trips
 * of each repetition's first cold connection (the orchestrator reads them once the link is down).
 */
final class SetupScenario {
  static final String NAME = "setup";

  private SetupScenario() {}

  static void run(int rep, ClientContext ctx) throws Exception {
    Histogram cold = Recorder.newHistogram();
    Histogram resumed = Recorder.newHistogram();
    for (int i = 0; i < ctx.config().setupSamples(); i++) {
      cold.recordValue(firstCallMicros(ctx, i == 0));
      resumed.recordValue(firstCallMicros(ctx, false));
    }
    ctx.recorder().histogram(rep, NAME, "cold", cold);
    ctx.recorder().histogram(rep, NAME, "resumed", resumed);
    ctx.coordinator().progress(NAME + " rep " + rep + " cold p50 " + cold.getValueAtPercentile(50) / 1000.0 + " ms");
  }

  private static long firstCallMicros(ClientContext ctx, boolean logWindow) {
    if (logWindow) {
      ctx.coordinator().openWindow();
    }
    long t0 = System.nanoTime();
    ManagedChannel ch = ctx.newChannel();
    try {
      Calls.unary(ch, CallOptions.DEFAULT, 1024, 1024);
      long us = Math.max(1, (System.nanoTime() - t0) / 1000);
      if (logWindow) {
        ctx.coordinator().closeWindow();
      }
      return us;
    } finally {
      ClientContext.close(ch);
    }
  }
}
