package dev.tern.rpc.micrometer;

import dev.tern.rpc.metrics.CallPolicyMetrics;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import io.grpc.Status;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Shows a {@link TernMetrics} in a Micrometer {@link MeterRegistry}: every counter of every
 * server's and channel's transports as a meter, under {@code tern.}, tagged {@code side} ({@code
 * server} or {@code client}), {@code scope} (the name given to the builder's {@code metrics(...)})
 * and {@code transport} ({@code tcp}, {@code quic}, {@code udp}, {@code inprocess}, or {@code none}
 * for a channel's calls that never got a stream).
 *
 * <pre>{@code
 * TernMetrics metrics = TernMetrics.create();
 * new TernMeterBinder(metrics).bindTo(registry);
 * Server server = TernServerBuilder.create().metrics(metrics, "greeter")...build().start();
 * }</pre>
 *
 * <table>
 *   <caption>The meters</caption>
 *   <tr><th>name</th><th>type</th><th>extra tag</th><th>what it reads</th></tr>
 *   <tr><td>{@code tern.calls.started}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#callsStarted()}</td></tr>
 *   <tr><td>{@code tern.calls.finished}</td><td>counter</td><td>{@code code} (a {@link
 *       Status.Code} name)</td><td>{@link TransportMetrics#callsFinished(Status.Code)}</td></tr>
 *   <tr><td>{@code tern.calls.active}</td><td>gauge</td><td></td>
 *       <td>{@link TransportMetrics#activeCalls()}</td></tr>
 *   <tr><td>{@code tern.connections.active}</td><td>gauge</td><td></td>
 *       <td>{@link TransportMetrics#connections()}</td></tr>
 *   <tr><td>{@code tern.connections.opened}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#connectionsOpened()}</td></tr>
 *   <tr><td>{@code tern.handshakes.started}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#handshakesStarted()}</td></tr>
 *   <tr><td>{@code tern.handshakes.succeeded}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#handshakesSucceeded()}</td></tr>
 *   <tr><td>{@code tern.handshakes.failed}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#handshakesFailed()}</td></tr>
 *   <tr><td>{@code tern.handshakes.timed.out}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#handshakesTimedOut()}</td></tr>
 *   <tr><td>{@code tern.handshakes.in.progress}</td><td>gauge</td><td></td>
 *       <td>{@link TransportMetrics#handshakesInProgress()}</td></tr>
 *   <tr><td>{@code tern.streams.reset}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#streamsReset()}</td></tr>
 *   <tr><td>{@code tern.refusals}</td><td>counter</td><td>{@code reason}</td>
 *       <td>{@link TransportMetrics#refusals(String)}</td></tr>
 *   <tr><td>{@code tern.bytes.sent}</td><td>counter, base unit {@code bytes}</td><td></td>
 *       <td>{@link TransportMetrics#bytesSent()}</td></tr>
 *   <tr><td>{@code tern.bytes.received}</td><td>counter, base unit {@code bytes}</td><td></td>
 *       <td>{@link TransportMetrics#bytesReceived()}</td></tr>
 *   <tr><td>{@code tern.retransmissions}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#retransmissions()}</td></tr>
 *   <tr><td>{@code tern.retries.sent}</td><td>counter</td><td></td>
 *       <td>{@link TransportMetrics#retriesSent()}</td></tr>
 *   <tr><td>{@code tern.early.data}</td><td>counter</td><td>{@code outcome} ({@code accepted} or
 *       {@code rejected})</td><td>{@link TransportMetrics#earlyDataAccepted()}, {@link
 *       TransportMetrics#earlyDataRejected()}</td></tr>
 * </table>
 *
 * <p>A channel's call policies ({@code rpc-resilience}: retries, hedging, circuit breakers) count
 * into {@link CallPolicyMetrics}, with the tags {@code side=client} and {@code scope}:
 * {@code tern.call.retries} (retries scheduled), {@code tern.call.retries.succeeded} (calls that
 * succeeded after a retry), {@code tern.call.retries.exhausted} (calls that failed with every
 * attempt used), {@code tern.call.retries.refused} (failed attempts not retried), {@code
 * tern.call.hedges} (hedged copies sent), all counters; and per transport (tag {@code transport})
 * {@code tern.breaker.state}, a gauge (0 closed, 1 open, 2 half-open), and {@code
 * tern.breaker.opened}, a counter of the times the breaker opened.
 *
 * <p>The meters read the live counters when the registry publishes or is read: counters are
 * {@link FunctionCounter}s, the three values that go down as well as up are {@link Gauge}s. Nothing
 * is copied on a timer, and counting stays a striped add whether or not a registry is bound.
 *
 * <p>The binder listens to the {@link TernMetrics} ({@link TernMetrics#addListener}), so counters
 * that appear after binding get their meters when they appear: a transport a server or channel
 * begins to count, the first call to finish with a status code, the first refusal with a reason.
 * Binding after counts exist shows them; a {@code tern.calls.finished} or {@code tern.refusals}
 * meter exists only once its code or reason has been counted. Registering is idempotent, as
 * Micrometer's registration is (the same name and tags give back the meter already there): binding
 * one binder twice does nothing, and two binders of one {@link TernMetrics} in one registry add no
 * meter and count nothing twice (Micrometer logs once, as a warning, that a meter was registered
 * already). Two {@link TernMetrics} whose servers or channels use the same names show, in one
 * registry, the counters of the one bound first: give each server and channel a name of its own.
 *
 * <p>References: the meters hold their {@link TransportMetrics} strongly, where Micrometer's
 * function meters would hold it weakly by default. A {@link TernMetrics} never drops a transport's
 * counters, so a weak reference would free nothing while the {@link TernMetrics} is reachable; held
 * strongly, the meters keep reading the final counts (a gauge whose object was collected would read
 * NaN) after the servers and channels that counted, and the application's own reference to the
 * {@link TernMetrics}, are gone. The memory so kept is a few counters per server or channel name and
 * transport, for as long as the registry lives.
 *
 * <p>New meters are registered on the thread that counts the new code, reason or transport (an
 * event loop, for a transport's refusals): once per counter, taking the registry's lock briefly.
 * Thread-safe.
 */
public final class TernMeterBinder implements MeterBinder {
  /** The tag that says whose counters: {@code server} or {@code client}. */
  public static final String SIDE = "side";
  /** The tag that names the server or channel (the name given to its builder's {@code metrics}). */
  public static final String SCOPE = "scope";
  /** The tag that names the transport. */
  public static final String TRANSPORT = "transport";
  /** The tag of {@code tern.calls.finished}: the status code's name ({@code OK}, {@code CANCELLED}). */
  public static final String CODE = "code";
  /** The tag of {@code tern.refusals}: the reason the transport reported. */
  public static final String REASON = "reason";
  /** The tag of {@code tern.early.data}: {@code accepted} or {@code rejected}. */
  public static final String OUTCOME = "outcome";

  private final TernMetrics metrics;
  private final Tags tags;
  private final Set<MeterRegistry> bound = Collections.newSetFromMap(new IdentityHashMap<>());

  /**
   * A binder for {@code metrics}.
   *
   * @param metrics the counters to show; not null
   */
  public TernMeterBinder(TernMetrics metrics) {
    this(metrics, Tags.empty());
  }

  /**
   * A binder for {@code metrics} that adds {@code tags} to every meter (an application or region
   * name, say); they must not use the keys this binder sets.
   *
   * @param metrics the counters to show; not null
   * @param tags added to every meter; not null
   * @throws IllegalArgumentException if a tag uses a key this binder sets
   */
  public TernMeterBinder(TernMetrics metrics, Iterable<Tag> tags) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    for (Tag t : this.tags) {
      switch (t.getKey()) {
        case SIDE, SCOPE, TRANSPORT, CODE, REASON, OUTCOME -> throw new IllegalArgumentException(
            "tag '" + t.getKey() + "' is set by TernMeterBinder itself");
        default -> { }
      }
    }
  }

  /**
   * Shows {@code metrics} in {@code registry}: binds a new {@link TernMeterBinder} to it.
   *
   * @param metrics the counters to show; not null
   * @param registry where; not null
   * @return the binder
   */
  public static TernMeterBinder bind(TernMetrics metrics, MeterRegistry registry) {
    TernMeterBinder binder = new TernMeterBinder(metrics);
    binder.bindTo(registry);
    return binder;
  }

  /**
   * Registers a meter for every counter that exists now and, from now on, for every counter that
   * appears. Binding to a registry this binder is bound to already does nothing.
   *
   * @param registry where to register; not null
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    synchronized (bound) {
      if (!bound.add(registry)) {
        return;
      }
    }
    metrics.addListener(new Registrar(registry));
  }

  /** The tags of a channel's call-policy meters: this binder's, then side and scope. */
  private Tags policyTags(CallPolicyMetrics m) {
    return tags.and(SIDE, "client", SCOPE, m.scope());
  }

  /** The tags of {@code m}'s meters: this binder's, then side, scope and transport. */
  private Tags tagsOf(TransportMetrics m) {
    return tags.and(SIDE, m.side().tag(), SCOPE, m.scope(), TRANSPORT, m.transport());
  }

  /**
   * {@code f} applied to {@code m}, holding {@code m} itself: Micrometer keeps the state object of a
   * function meter in a weak reference, and this function is what keeps it reachable (see the class
   * comment).
   */
  private static ToDoubleFunction<TransportMetrics> held(TransportMetrics m, ToDoubleFunction<TransportMetrics> f) {
    return ignored -> f.applyAsDouble(m);
  }

  /** Registers the meters of the counters {@link TernMetrics} says exist. */
  private final class Registrar implements TernMetrics.Listener {
    private final MeterRegistry registry;

    Registrar(MeterRegistry registry) {
      this.registry = registry;
    }

    @Override
    public void transportAdded(TransportMetrics m) {
      Tags t = tagsOf(m);
      counter("tern.calls.started", m, t, null, TransportMetrics::callsStarted,
          "Calls started: on a server, streams clients opened (refused ones too); on a channel, calls that got a"
              + " stream on this transport");
      gauge("tern.calls.active", m, t, TransportMetrics::activeCalls, "Calls started and not yet finished");
      gauge("tern.connections.active", m, t, TransportMetrics::connections, "Connections open now");
      counter("tern.connections.opened", m, t, null, TransportMetrics::connectionsOpened,
          "Connections opened (handshakes completed)");
      counter("tern.handshakes.started", m, t, null, TransportMetrics::handshakesStarted,
          "Handshakes begun: connections a server accepted, connection attempts a channel made");
      counter("tern.handshakes.succeeded", m, t, null, TransportMetrics::handshakesSucceeded,
          "Handshakes completed");
      counter("tern.handshakes.failed", m, t, null, TransportMetrics::handshakesFailed,
          "Handshakes that ended without completing");
      counter("tern.handshakes.timed.out", m, t, null, TransportMetrics::handshakesTimedOut,
          "Handshakes closed for not completing within the handshake timeout (also counted failed)");
      gauge("tern.handshakes.in.progress", m, t, TransportMetrics::handshakesInProgress,
          "Handshakes begun and not yet completed or failed");
      counter("tern.streams.reset", m, t, null, TransportMetrics::streamsReset, "Streams reset by the peer");
      counter("tern.bytes.sent", m, t, BaseUnits.BYTES, TransportMetrics::bytesSent,
          "Bytes written to the network");
      counter("tern.bytes.received", m, t, BaseUnits.BYTES, TransportMetrics::bytesReceived,
          "Bytes read from the network");
      counter("tern.retransmissions", m, t, null, TransportMetrics::retransmissions,
          "Packets or segments sent again after a loss");
      counter("tern.retries.sent", m, t, null, TransportMetrics::retriesSent,
          "Retry packets sent to validate a client's address");
      counter("tern.early.data", m, t.and(OUTCOME, "accepted"), null, TransportMetrics::earlyDataAccepted,
          "0-RTT attempts, by whether their early data was accepted");
      counter("tern.early.data", m, t.and(OUTCOME, "rejected"), null, TransportMetrics::earlyDataRejected,
          "0-RTT attempts, by whether their early data was accepted");
    }

    @Override
    public void statusCodeAdded(TransportMetrics m, Status.Code code) {
      counter("tern.calls.finished", m, tagsOf(m).and(CODE, code.name()), null, x -> x.callsFinished(code),
          "Calls finished, by status code");
    }

    @Override
    public void refusalReasonAdded(TransportMetrics m, String reason) {
      counter("tern.refusals", m, tagsOf(m).and(REASON, reason), null, x -> x.refusals(reason),
          "Work the transport refused or dropped (connections, handshakes, streams, datagrams), by reason");
    }

    @Override
    public void callPoliciesAdded(CallPolicyMetrics m) {
      Tags t = policyTags(m);
      policyCounter("tern.call.retries", m, t, CallPolicyMetrics::retriesScheduled, "Retries scheduled");
      policyCounter("tern.call.retries.succeeded", m, t, CallPolicyMetrics::callsSucceededAfterRetries,
          "Calls that succeeded after at least one retry");
      policyCounter("tern.call.retries.exhausted", m, t, CallPolicyMetrics::callsWithRetriesExhausted,
          "Calls that failed with every attempt their policy allows used");
      policyCounter("tern.call.retries.refused", m, t, CallPolicyMetrics::attemptsNotRetried,
          "Failed attempts not retried (their code, a pushback, the throttle, a committed call)");
      policyCounter("tern.call.hedges", m, t, CallPolicyMetrics::hedgesSent, "Hedged copies of calls sent");
    }

    @Override
    public void breakerAdded(CallPolicyMetrics m, String transport) {
      Tags t = policyTags(m).and(TRANSPORT, transport);
      Gauge.builder("tern.breaker.state", m, x -> {
        CallPolicyMetrics.BreakerState state = m.breakerState(transport);
        return state == null ? Double.NaN : state.ordinal();
      }).tags(t).description("The transport's circuit breaker: 0 closed, 1 open, 2 half-open").register(registry);
      FunctionCounter.builder("tern.breaker.opened", m, x -> m.breakerOpened(transport)).tags(t)
          .description("Times the transport's circuit breaker opened").register(registry);
    }

    private void policyCounter(String name, CallPolicyMetrics m, Tags t,
        java.util.function.ToLongFunction<CallPolicyMetrics> f, String description) {
      FunctionCounter.builder(name, m, x -> f.applyAsLong(m)).tags(t).description(description).register(registry);
    }

    private void counter(String name, TransportMetrics m, Tags t, String baseUnit,
        ToDoubleFunction<TransportMetrics> f, String description) {
      FunctionCounter.builder(name, m, held(m, f)).tags(t).baseUnit(baseUnit).description(description)
          .register(registry);
    }

    private void gauge(String name, TransportMetrics m, Tags t, ToDoubleFunction<TransportMetrics> f,
        String description) {
      Gauge.builder(name, m, held(m, f)).tags(t).description(description).register(registry);
    }
  }
}
