package dev.tern.bench.scenario;

import dev.tern.bench.stack.AutoStack;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code fallback}: UDP is blocked on the link (dropped silently in both directions, as by a
 * middlebox), then a channel that never reached the server makes its first 1 KiB call. Reports the
 * time from building the channel to the reply ({@code first_call_ms}) or, when the call fails, the
 * time the failure came ({@code failure_ms}) and its status (as a note of the run, not an error);
 * for the {@code auto} stack, which transport carried the call ({@code carried_by_<transport>}).
 * The call gets {@code fallbackSeconds}; UDP is let through again afterwards.
 */
final class FallbackScenario {
  static final String NAME = "fallback";

  private FallbackScenario() {}

  static void run(int rep, ClientContext ctx) {
    ctx.coordinator().blockUdp(true);
    try {
      long t0 = System.nanoTime();
      ManagedChannel ch = ctx.newChannel();
      try {
        Calls.unary(ch, CallOptions.DEFAULT.withDeadlineAfter(ctx.config().fallbackSeconds(), TimeUnit.SECONDS),
            1024, 1024);
        double ms = (System.nanoTime() - t0) / 1e6;
        ctx.recorder().histogram(rep, NAME, "first", histogram(ms));
        ctx.recorder().metric(rep, NAME, "first_call_ms", ms);
        ctx.recorder().metric(rep, NAME, "call_failed", 0);
        String carrier = ctx.stack().name().equals(AutoStack.NAME) ? AutoStack.carrier(ch) : ctx.stack().name();
        if (ctx.stack().name().equals(AutoStack.NAME)) {
          for (String t : AutoStack.serverTransports()) {
            ctx.recorder().metric(rep, NAME, "carried_by_" + t, t.equals(carrier) ? 1 : 0);
          }
        }
        ctx.coordinator().progress(String.format(Locale.ROOT, "%s rep %d: first call after %.0f ms over %s", NAME,
            rep, ms, carrier));
      } catch (RuntimeException e) {
        double ms = (System.nanoTime() - t0) / 1e6;
        Status st = Status.fromThrowable(e);
        ctx.recorder().metric(rep, NAME, "call_failed", 1);
        ctx.recorder().metric(rep, NAME, "failure_ms", ms);
        ctx.recorder().outcome(NAME, String.format(Locale.ROOT, "rep %d: failed after %.0f ms: %s%s", rep, ms,
            st.getCode(), st.getDescription() == null ? "" : ": " + st.getDescription()));
        ctx.coordinator().progress(String.format(Locale.ROOT, "%s rep %d: FAILED after %.0f ms: %s", NAME, rep, ms,
            st));
      } finally {
        ClientContext.close(ch);
      }
    } finally {
      ctx.coordinator().blockUdp(false);
    }
  }

  private static org.HdrHistogram.Histogram histogram(double ms) {
    org.HdrHistogram.Histogram h = Recorder.newHistogram();
    h.recordValue(Math.max(1, Math.round(ms * 1000)));
    return h;
  }
}
