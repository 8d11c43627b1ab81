package dev.tern.transport.quic;

import io.grpc.Status;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http3.DefaultHttp3UnknownFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionStats;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Keep-alive for a client's QUIC connection. Netty's QUIC channel offers no PING, so the probe is
 * an HTTP/3 frame of a reserved type on the client's control stream: RFC 9114 §7.2.8 reserves the
 * types {@code 0x1f * N + 0x21} so that receivers ignore them, and as stream data it is
 * ack-eliciting (RFC 9000 §13.2.1), which is all a PING frame would give: the peer answers with an
 * ACK, the NAT binding on the path is refreshed, and both idle timers restart (RFC 9000 §10.1).
 *
 * <p>Every interval, on the connection's event loop: if calls are open (or pinging without calls
 * is asked for) and no packet arrived since the last tick, the probe goes out; if no packet
 * arrives within the keep-alive timeout after it, the connection is declared dead, long before
 * quiche's idle timeout would say so.
 */
final class QuicKeepAlive {
  /** A reserved HTTP/3 frame type (RFC 9114 §7.2.8): 0x1f * 7 + 0x21. */
  static final long PROBE_FRAME_TYPE = 0x1fL * 7 + 0x21;
  /** Used when the channel names no interval: FIELD-NOTES' NAT bindings expire after 15-30 s. */
  static final long DEFAULT_INTERVAL_MILLIS = 15_000;

  private final QuicChannel quic;
  private final long intervalMillis;
  private final long timeoutMillis;
  private final boolean withoutCalls;
  private final BooleanSupplier callsOpen;
  private final Consumer<Status> dead;
  private ScheduledFuture<?> ticks;
  private ScheduledFuture<?> deadline;
  private long receivedAtLastTick = -1;
  /** Packets received when the outstanding probe left. */
  private long probeBase;
  private volatile long probesSent;

  QuicKeepAlive(QuicChannel quic, long intervalMillis, long timeoutMillis, boolean withoutCalls,
      BooleanSupplier callsOpen, Consumer<Status> dead) {
    this.quic = quic;
    this.intervalMillis = intervalMillis > 0 ? intervalMillis : DEFAULT_INTERVAL_MILLIS;
    this.timeoutMillis = timeoutMillis;
    this.withoutCalls = withoutCalls;
    this.callsOpen = callsOpen;
    this.dead = dead;
  }

  /** Starts the ticks; on the connection's event loop. */
  void start() {
    ticks = quic.eventLoop().scheduleAtFixedRate(this::tick, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  /** Stops for good; on any thread. */
  void stop() {
    ScheduledFuture<?> t = ticks;
    if (t != null) {
      t.cancel(false);
    }
    ScheduledFuture<?> d = deadline;
    if (d != null) {
      d.cancel(false);
    }
  }

  /** Probes sent so far (any thread). */
  long probesSent() {
    return probesSent;
  }

  private long packetsReceived() {
    Future<QuicConnectionStats> f = quic.collectStats();
    // On the event loop Netty answers at once.
    return f.isDone() && f.isSuccess() ? f.getNow().recv() : -1;
  }

  private void tick() {
    if (!quic.isActive()) {
      stop();
      return;
    }
    long received = packetsReceived();
    if (deadline != null) {
      if (received == probeBase) {
        return; // the probe is still unanswered: the deadline decides
      }
      answered(received);
    }
    boolean quiet = received >= 0 && received == receivedAtLastTick;
    receivedAtLastTick = received;
    if (!quiet || !(withoutCalls || callsOpen.getAsBoolean())) {
      return;
    }
    QuicStreamChannel control = Http3.getLocalControlStream(quic);
    if (control == null || !control.isActive()) {
      return;
    }
    probesSent = probesSent + 1; // written on the event loop only
    control.writeAndFlush(new DefaultHttp3UnknownFrame(PROBE_FRAME_TYPE, Unpooled.EMPTY_BUFFER));
    probeBase = received;
    deadline = quic.eventLoop().schedule(this::probeDeadline, timeoutMillis, TimeUnit.MILLISECONDS);
  }

  /**
   * The probe was answered: the packets that answered it (its ACK) do not count as traffic, so a
   * connection that stays quiet is probed again one interval later.
   */
  private void answered(long received) {
    deadline.cancel(false);
    deadline = null;
    receivedAtLastTick = received;
  }

  private void probeDeadline() {
    if (deadline == null) {
      return;
    }
    long now = packetsReceived();
    if (now != probeBase || now < 0) {
      answered(now);
      return;
    }
    deadline = null;
    if (quic.isActive()) {
      stop();
      dead.accept(Status.UNAVAILABLE.withDescription("QUIC connection to " + quic.remoteAddress()
          + " is dead: keep-alive probe unanswered for " + timeoutMillis + " ms"));
    }
  }
}
