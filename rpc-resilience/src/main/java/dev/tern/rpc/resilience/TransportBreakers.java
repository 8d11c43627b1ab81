package dev.tern.rpc.resilience;

import dev.tern.rpc.spi.CallPolicyProvider;
import dev.tern.rpc.spi.ConnectionAttributes;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.grpc.Attributes;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One channel's circuit breakers, one per transport (resilience4j {@link CircuitBreaker}s named
 * {@code authority/transport}). Each attempt's outcome is recorded on the breaker of the transport
 * that carried it. The breakers do not refuse calls (the channel, not the call, picks the
 * transport); they feed the channel's transport choice instead:
 *
 * <ul>
 *   <li>OPEN: the transport is left out of the channel's races (as a broken mark would leave it
 *       out) and the channel leaves its connections on it; their calls finish, the next call
 *       connects over the next transport (TCP).
 *   <li>after the wait in OPEN, HALF_OPEN: the transport may race again. Unless the channel's
 *       {@code TransportMemory} marks it broken (the race found it failing where another worked;
 *       the mark then decides when it is tried again), the channel leaves its connections on less
 *       preferred transports, so the next call races and the recovered transport can win back.
 *       The attempts it then carries close the breaker or open it again.
 * </ul>
 */
final class TransportBreakers {
  private static final Logger log = Logger.getLogger(TransportBreakers.class.getName());

  private final CallPolicyProvider.ChannelControl channel;
  private final CircuitBreakerConfig config;
  private final ResilienceListener listener;
  private final Map<String, CircuitBreaker> breakers = new ConcurrentHashMap<>();

  TransportBreakers(CallPolicyProvider.ChannelControl channel, CircuitBreakerConfig config,
      ResilienceListener listener) {
    this.channel = channel;
    this.config = config;
    this.listener = listener;
  }

  /** The breaker of {@code transport}, made on first use. */
  CircuitBreaker breaker(String transport) {
    return breakers.computeIfAbsent(transport, this::newBreaker);
  }

  private CircuitBreaker newBreaker(String transport) {
    String authority = channel.authority();
    CircuitBreaker cb = CircuitBreaker.of(authority + "/" + transport, config);
    if (listener instanceof CountingListener counting) {
      counting.breakerCreated(transport);
    }
    cb.getEventPublisher()
        .onStateTransition(e -> {
          CircuitBreaker.State to = e.getStateTransition().getToState();
          listener.breakerStateChanged(authority, transport, e.getStateTransition().getFromState().name(), to.name());
          stateChanged(cb, transport, to);
        })
        .onSuccess(e -> listener.breakerCallRecorded(authority, transport, false, e.getElapsedDuration()))
        .onError(e -> listener.breakerCallRecorded(authority, transport, true, e.getElapsedDuration()));
    return cb;
  }

  private void stateChanged(CircuitBreaker cb, String transport, CircuitBreaker.State to) {
    // Runs inside resilience4j's transition: leaving connections and scheduling stay quick.
    log.log(Level.FINE, "channel to {0}: circuit breaker of {1} is {2}",
        new Object[] {channel.authority(), transport, to});
    if (to == CircuitBreaker.State.OPEN) {
      channel.leaveConnections(transport::equals);
      // The breaker's own timer would need a thread of resilience4j's; the channel's timer is here.
      long waitMillis = cb.getCircuitBreakerConfig().getWaitIntervalFunctionInOpenState().apply(1);
      try {
        channel.scheduler().schedule(() -> {
          if (cb.getState() == CircuitBreaker.State.OPEN) {
            cb.transitionToHalfOpenState();
          }
        }, waitMillis, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException channelTerminated) {
        // No more calls: nothing to come back for.
      }
    } else if (to == CircuitBreaker.State.HALF_OPEN) {
      if (!channel.markedBroken(transport)) {
        List<String> preference = channel.transportPreference();
        int rank = preference.indexOf(transport);
        if (rank >= 0) {
          channel.leaveConnections(t -> preference.indexOf(t) > rank);
        }
      }
      // If the transport carried nothing while half-open (it lost the race, or its mark keeps it
      // out), open again: after the next wait the channel tries it again.
      long waitMillis = cb.getCircuitBreakerConfig().getWaitIntervalFunctionInOpenState().apply(1);
      try {
        channel.scheduler().schedule(() -> {
          if (cb.getState() == CircuitBreaker.State.HALF_OPEN && cb.getMetrics().getNumberOfBufferedCalls() == 0) {
            cb.transitionToOpenState();
          }
        }, waitMillis, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException channelTerminated) {
        // No more calls.
      }
    }
  }

  /** Whether {@code transport} may race now: its breaker, if it has one, is not open. */
  boolean allows(String transport) {
    CircuitBreaker cb = breakers.get(transport);
    if (cb == null) {
      return true;
    }
    CircuitBreaker.State s = cb.getState();
    return s != CircuitBreaker.State.OPEN && s != CircuitBreaker.State.FORCED_OPEN;
  }

  /**
   * Records an attempt's outcome on the breaker of the transport that carried it ({@code attrs}'
   * {@link ConnectionAttributes#TRANSPORT}); an attempt that never reached a transport is not
   * recorded.
   *
   * @param failedTransport whether the outcome counts against the transport (see {@link #countsAgainst})
   */
  void record(Attributes attrs, boolean failedTransport, Status status, long startNanos) {
    String transport = attrs == null ? null : attrs.get(ConnectionAttributes.TRANSPORT);
    if (transport == null || !failedTransport && status.getCode() == Status.Code.CANCELLED) {
      return; // never sent, or cancelled: says nothing about the transport
    }
    CircuitBreaker cb = breaker(transport);
    long took = System.nanoTime() - startNanos;
    if (failedTransport) {
      cb.onError(took, TimeUnit.NANOSECONDS, status.asRuntimeException());
    } else {
      cb.onSuccess(took, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Whether an attempt that ended with {@code status} counts against its transport: UNAVAILABLE
   * (the connection failed or refused it), or no response headers before a deadline or the
   * per-attempt timeout. Every other outcome is an answer from the server, so the transport works.
   */
  static boolean countsAgainst(Status status, boolean headersReceived, boolean timedOut) {
    Status.Code c = status.getCode();
    return c == Status.Code.UNAVAILABLE || timedOut
        || !headersReceived && c == Status.Code.DEADLINE_EXCEEDED;
  }

  /** For tests: the breaker's state, or null if the transport has none yet. */
  CircuitBreaker.State state(String transport) {
    CircuitBreaker cb = breakers.get(transport);
    return cb == null ? null : cb.getState();
  }

  /** How long a breaker stays open before it lets its transport race again. */
  Duration openWait() {
    return Duration.ofMillis(config.getWaitIntervalFunctionInOpenState().apply(1));
  }
}
