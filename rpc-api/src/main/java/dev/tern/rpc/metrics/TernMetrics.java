package dev.tern.rpc.metrics;

import io.grpc.Status;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The counters of Tern's servers and channels, per transport, for an operator to read or graph:
 * give one to {@code TernServerBuilder.metrics(...)} and {@code TernChannelBuilder.metrics(...)},
 * then read {@link #transports()} or bind it to a metrics library (the {@code rpc-micrometer}
 * module binds it to a Micrometer {@code MeterRegistry}).
 *
 * <p>Each server or channel counts under its scope name and each of its transports under its own
 * {@link TransportMetrics}; two servers given the same name add into the same counters. A server
 * or channel built without one counts into a registry of its own that nothing reads.
 *
 * <p>Thread-safe. Counting is a striped add; nothing allocates per call or per packet once a
 * transport's counters exist.
 */
public final class TernMetrics {
  private static final Logger log = Logger.getLogger(TernMetrics.class.getName());

  /** Whose counters: a server's or a channel's. */
  public enum Side {
    /** A server's: calls clients made to it, connections it accepted. */
    SERVER("server"),
    /** A channel's: calls it made, connections it opened. */
    CLIENT("client");

    private final String tag;

    Side(String tag) {
      this.tag = tag;
    }

    /**
     * The side as a lower-case tag value: {@code server} or {@code client}.
     *
     * @return the side as a lower-case tag value: {@code server} or {@code client}
     */
    public String tag() {
      return tag;
    }
  }

  /**
   * Told when counters appear, so that a binding can register them: a new transport's counters, and
   * the first time a status code or a refusal reason is counted on one. Called on the thread that
   * counts; must not block and must not throw. A listener added while a counter appears may be told
   * of it twice, so registering must be idempotent (Micrometer's is).
   */
  public interface Listener {
    /**
     * A server or channel began to count a transport.
     *
     * @param metrics its counters
     */
    void transportAdded(TransportMetrics metrics);

    /**
     * A call on {@code metrics} finished with {@code code} for the first time.
     *
     * @param metrics the transport's counters
     * @param code the status code
     */
    default void statusCodeAdded(TransportMetrics metrics, Status.Code code) {}

    /**
     * {@code metrics} counted a refusal with {@code reason} for the first time.
     *
     * @param metrics the transport's counters
     * @param reason the reason
     */
    default void refusalReasonAdded(TransportMetrics metrics, String reason) {}

    /**
     * A channel's call policies began to count ({@link #callPolicies}).
     *
     * @param metrics their counters
     */
    default void callPoliciesAdded(CallPolicyMetrics metrics) {}

    /**
     * A channel's call policies told of {@code transport}'s circuit breaker for the first time.
     *
     * @param metrics the channel's call-policy counters
     * @param transport the transport's name
     */
    default void breakerAdded(CallPolicyMetrics metrics, String transport) {}
  }

  private final List<TransportMetrics> transports = new ArrayList<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final List<CallPolicyMetrics> policies = new ArrayList<>();

  /**
   * A new, empty registry.
   *
   * @return a new, empty registry
   */
  public static TernMetrics create() {
    return new TernMetrics();
  }

  private TernMetrics() {}

  /**
   * The counters of {@code transport} on the server or channel named {@code scope}, created on
   * first use. The call layer calls this; an application reads {@link #transports()}.
   *
   * @param side server or client
   * @param scope the server's or channel's name
   * @param transport the transport's name, or {@code none} for a channel's calls that never got a
   *     stream
   * @return the counters; the same object for the same three values
   */
  public TransportMetrics transport(Side side, String scope, String transport) {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(transport, "transport");
    TransportMetrics created;
    synchronized (transports) {
      for (TransportMetrics m : transports) {
        if (m.side() == side && m.scope().equals(scope) && m.transport().equals(transport)) {
          return m;
        }
      }
      created = new TransportMetrics(this, side, scope, transport);
      transports.add(created);
    }
    tell(l -> l.transportAdded(created));
    return created;
  }

  /**
   * The counters of the call policies (retries, hedging, circuit breakers) of the channel named
   * {@code scope}, created on first use. A call-policy module counts into them; an application
   * reads {@link #callPolicies()}.
   *
   * @param scope the channel's name
   * @return the counters; the same object for the same scope
   */
  public CallPolicyMetrics callPolicies(String scope) {
    Objects.requireNonNull(scope, "scope");
    CallPolicyMetrics created;
    synchronized (transports) {
      for (CallPolicyMetrics m : policies) {
        if (m.scope().equals(scope)) {
          return m;
        }
      }
      created = new CallPolicyMetrics(this, scope);
      policies.add(created);
    }
    tell(l -> l.callPoliciesAdded(created));
    return created;
  }

  /**
   * Every channel's call-policy counters so far, in the order they were created; a copy.
   *
   * @return every channel's call-policy counters so far
   */
  public List<CallPolicyMetrics> callPolicies() {
    synchronized (transports) {
      return Collections.unmodifiableList(new ArrayList<>(policies));
    }
  }

  void breakerSeen(CallPolicyMetrics m, String transport) {
    tell(l -> l.breakerAdded(m, transport));
  }

  /**
   * Every transport's counters so far, in the order they were created; a copy.
   *
   * @return every transport's counters so far, in the order they were created; a copy
   */
  public List<TransportMetrics> transports() {
    synchronized (transports) {
      return Collections.unmodifiableList(new ArrayList<>(transports));
    }
  }

  /**
   * Adds a listener and tells it of every counter that exists already (the transports, then the
   * status codes and reasons seen on each), so it misses none.
   *
   * @param listener told of new counters from now on; not null
   */
  public void addListener(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    List<TransportMetrics> existing;
    List<CallPolicyMetrics> existingPolicies;
    synchronized (transports) {
      listeners.add(listener);
      existing = new ArrayList<>(transports);
      existingPolicies = new ArrayList<>(policies);
    }
    for (CallPolicyMetrics p : existingPolicies) {
      listener.callPoliciesAdded(p);
      for (String transport : p.breakerStates().keySet()) {
        listener.breakerAdded(p, transport);
      }
    }
    for (TransportMetrics m : existing) {
      listener.transportAdded(m);
      for (Status.Code code : Status.Code.values()) {
        if (m.callsFinished(code) > 0) {
          listener.statusCodeAdded(m, code);
        }
      }
      for (String reason : m.refusals().keySet()) {
        listener.refusalReasonAdded(m, reason);
      }
    }
  }

  void statusSeen(TransportMetrics m, Status.Code code) {
    tell(l -> l.statusCodeAdded(m, code));
  }

  void reasonSeen(TransportMetrics m, String reason) {
    tell(l -> l.refusalReasonAdded(m, reason));
  }

  /** Tells every listener of a new counter; a listener that throws is logged and skipped. */
  private void tell(java.util.function.Consumer<Listener> event) {
    for (Listener l : listeners) {
      try {
        event.accept(l);
      } catch (RuntimeException e) {
        log.log(Level.WARNING, "metrics listener " + l + " threw; ignored", e);
      }
    }
  }

  @Override
  public String toString() {
    return "TernMetrics" + transports();
  }
}
