package dev.tern.rpc.metrics;

import dev.tern.rpc.spi.TransportEvents;
import io.grpc.Status;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one transport on one server or channel: calls, connections, handshakes, the
 * transport's own events. Every counter only grows; the gauges ({@link #activeCalls()}, {@link
 * #connections()}, {@link #handshakesInProgress()}) are differences of two counters, so they never
 * drift from what was counted. Reads are cheap and safe from any thread while the counts move.
 *
 * <p>The transport reports through the {@link TransportEvents} side of this object; the call layer
 * counts calls, connections and handshakes itself from the SPI's events.
 */
public final class TransportMetrics implements TransportEvents {
  /** Distinct refusal reasons kept; reasons beyond are counted under {@link #OTHER_REASON}. */
  static final int MAX_REASONS = 32;
  /** Where refusals beyond {@link #MAX_REASONS} distinct reasons are counted. */
  public static final String OTHER_REASON = "other";

  private static final Status.Code[] CODES = Status.Code.values();

  private final TernMetrics owner;
  private final TernMetrics.Side side;
  private final String scope;
  private final String transport;

  private final LongAdder callsStarted = new LongAdder();
  private final LongAdder[] callsFinished = new LongAdder[CODES.length];
  private final boolean[] codeSeen = new boolean[CODES.length];
  private final LongAdder handshakesStarted = new LongAdder();
  private final LongAdder handshakesSucceeded = new LongAdder();
  private final LongAdder handshakesFailed = new LongAdder();
  private final LongAdder handshakesTimedOut = new LongAdder();
  private final LongAdder connectionsOpened = new LongAdder();
  private final LongAdder connectionsClosed = new LongAdder();
  private final LongAdder streamsReset = new LongAdder();
  private final LongAdder bytesSent = new LongAdder();
  private final LongAdder bytesReceived = new LongAdder();
  private final LongAdder retransmitted = new LongAdder();
  private final LongAdder retriesSent = new LongAdder();
  private final LongAdder earlyDataAccepted = new LongAdder();
  private final LongAdder earlyDataRejected = new LongAdder();
  private final ConcurrentHashMap<String, LongAdder> refusals = new ConcurrentHashMap<>();

  TransportMetrics(TernMetrics owner, TernMetrics.Side side, String scope, String transport) {
    this.owner = owner;
    this.side = side;
    this.scope = scope;
    this.transport = transport;
    for (int i = 0; i < CODES.length; i++) {
      callsFinished[i] = new LongAdder();
    }
  }

  /**
   * Whether these are a server's counters or a channel's.
   *
   * @return whether these are a server's counters or a channel's
   */
  public TernMetrics.Side side() {
    return side;
  }

  /**
   * The server's or channel's name, as given to its builder.
   *
   * @return the server's or channel's name, as given to its builder
   */
  public String scope() {
    return scope;
  }

  /**
   * The transport's name ({@code tcp}, {@code quic}, {@code udp}, {@code inprocess}), or {@code none}.
   *
   * @return the transport's name ({@code tcp}, {@code quic}, {@code udp}, {@code inprocess}), or {@code none}
   */
  public String transport() {
    return transport;
  }

  // ---- calls (the call layer counts) ----

  /**
   * Counts a call started on this transport: on a server, a stream a client opened (refused ones
   * too); on a channel, a call that got a stream on one of this transport's connections (a call
   * that never did is counted on the channel's {@code none} transport when it ends).
   */
  public void callStarted() {
    callsStarted.increment();
  }

  /**
   * Counts a call counted by {@link #callStarted} as finished with {@code code}.
   *
   * @param code the status the call ended with
   */
  public void callFinished(Status.Code code) {
    int i = code.ordinal();
    callsFinished[i].increment();
    if (!codeSeen[i] && firstSeen(i)) {
      owner.statusSeen(this, code);
    }
  }

  private boolean firstSeen(int i) {
    synchronized (codeSeen) {
      if (codeSeen[i]) {
        return false;
      }
      codeSeen[i] = true;
      return true;
    }
  }

  /**
   * Calls started so far.
   *
   * @return calls started so far
   */
  public long callsStarted() {
    return callsStarted.sum();
  }

  /**
   * Calls finished so far with {@code code}.
   *
   * @param code the status code
   * @return how many
   */
  public long callsFinished(Status.Code code) {
    return callsFinished[code.ordinal()].sum();
  }

  /**
   * Calls finished so far, whatever their status.
   *
   * @return calls finished so far, whatever their status
   */
  public long callsFinished() {
    long n = 0;
    for (LongAdder a : callsFinished) {
      n += a.sum();
    }
    return n;
  }

  /**
   * Calls started and not finished: the calls in progress now.
   *
   * @return calls started and not finished: the calls in progress now
   */
  public long activeCalls() {
    // Finished first: a call that ends between the two reads is then not counted as negative.
    long finished = callsFinished();
    return callsStarted.sum() - finished;
  }

  // ---- connections and handshakes (the call layer counts from the SPI's connection events) ----

  /** Counts a handshake begun (a server accepted a connection; a channel started to connect). */
  public void handshakeStarted() {
    handshakesStarted.increment();
  }

  /** Counts a handshake begun by {@link #handshakeStarted} that completed: a connection opened. */
  public void handshakeSucceeded() {
    handshakesSucceeded.increment();
    connectionsOpened.increment();
  }

  /** Counts a handshake that ended without completing (refused, failed, or peer gone). */
  public void handshakeFailed() {
    handshakesFailed.increment();
  }

  /**
   * Counts a handshake closed for not completing within the handshake timeout; it is also counted
   * failed when its connection ends.
   */
  public void handshakeTimedOut() {
    handshakesTimedOut.increment();
  }

  /** Counts a connection opened by {@link #handshakeSucceeded} that has ended. */
  public void connectionClosed() {
    connectionsClosed.increment();
  }

  /**
   * Handshakes begun so far.
   *
   * @return handshakes begun so far
   */
  public long handshakesStarted() {
    return handshakesStarted.sum();
  }

  /**
   * Handshakes completed so far.
   *
   * @return handshakes completed so far
   */
  public long handshakesSucceeded() {
    return handshakesSucceeded.sum();
  }

  /**
   * Handshakes that ended without completing so far.
   *
   * @return handshakes that ended without completing so far
   */
  public long handshakesFailed() {
    return handshakesFailed.sum();
  }

  /**
   * Handshakes closed for the handshake timeout so far.
   *
   * @return handshakes closed for the handshake timeout so far
   */
  public long handshakesTimedOut() {
    return handshakesTimedOut.sum();
  }

  /**
   * Handshakes begun and not yet completed or failed: half-open connections now.
   *
   * @return handshakes begun and not yet completed or failed: half-open connections now
   */
  public long handshakesInProgress() {
    long ended = handshakesSucceeded.sum() + handshakesFailed.sum();
    return handshakesStarted.sum() - ended;
  }

  /**
   * Connections opened so far.
   *
   * @return connections opened so far
   */
  public long connectionsOpened() {
    return connectionsOpened.sum();
  }

  /**
   * Connections open now (opened and not yet closed).
   *
   * @return connections open now (opened and not yet closed)
   */
  public long connections() {
    long closed = connectionsClosed.sum();
    return connectionsOpened.sum() - closed;
  }

  // ---- the transport's events ----

  @Override
  public void bytesSent(long bytes) {
    bytesSent.add(bytes);
  }

  @Override
  public void bytesReceived(long bytes) {
    bytesReceived.add(bytes);
  }

  @Override
  public void retransmitted(long packets) {
    retransmitted.add(packets);
  }

  @Override
  public void refused(String reason) {
    LongAdder a = refusals.get(reason);
    if (a == null) {
      a = newReason(reason);
    }
    a.increment();
  }

  private LongAdder newReason(String reason) {
    LongAdder created;
    synchronized (refusals) {
      LongAdder a = refusals.get(reason);
      if (a != null) {
        return a;
      }
      // Bounded: a transport's reasons are constants, but a bug or a hostile input must not grow
      // the map without end.
      String key = refusals.size() < MAX_REASONS - 1 ? reason : OTHER_REASON;
      a = refusals.get(key);
      if (a != null) {
        return a;
      }
      created = new LongAdder();
      refusals.put(key, created);
      reason = key;
    }
    owner.reasonSeen(this, reason);
    return created;
  }

  @Override
  public void streamReset() {
    streamsReset.increment();
  }

  @Override
  public void retrySent() {
    retriesSent.increment();
  }

  @Override
  public void earlyData(boolean accepted) {
    (accepted ? earlyDataAccepted : earlyDataRejected).increment();
  }

  /**
   * Bytes written to the network so far.
   *
   * @return bytes written to the network so far
   */
  public long bytesSent() {
    return bytesSent.sum();
  }

  /**
   * Bytes read from the network so far.
   *
   * @return bytes read from the network so far
   */
  public long bytesReceived() {
    return bytesReceived.sum();
  }

  /**
   * Packets or segments sent again after a loss so far.
   *
   * @return packets or segments sent again after a loss so far
   */
  public long retransmissions() {
    return retransmitted.sum();
  }

  /**
   * Streams reset by the peer so far.
   *
   * @return streams reset by the peer so far
   */
  public long streamsReset() {
    return streamsReset.sum();
  }

  /**
   * Retry packets sent so far.
   *
   * @return retry packets sent so far
   */
  public long retriesSent() {
    return retriesSent.sum();
  }

  /**
   * 0-RTT attempts whose early data was accepted so far.
   *
   * @return 0-RTT attempts whose early data was accepted so far
   */
  public long earlyDataAccepted() {
    return earlyDataAccepted.sum();
  }

  /**
   * 0-RTT attempts whose early data was rejected (the calls went again in 1-RTT) so far.
   *
   * @return 0-RTT attempts whose early data was rejected (the calls went again in 1-RTT) so far
   */
  public long earlyDataRejected() {
    return earlyDataRejected.sum();
  }

  /**
   * Refusals so far with {@code reason}.
   *
   * @param reason the reason, as reported
   * @return how many; 0 for a reason never reported
   */
  public long refusals(String reason) {
    LongAdder a = refusals.get(reason);
    return a == null ? 0 : a.sum();
  }

  /**
   * Refusals so far by reason, in the order the reasons first appeared; a copy.
   *
   * @return refusals so far by reason, in the order the reasons first appeared; a copy
   */
  public Map<String, Long> refusals() {
    Map<String, Long> out = new LinkedHashMap<>();
    refusals.forEach((k, v) -> out.put(k, v.sum()));
    return Collections.unmodifiableMap(out);
  }

  @Override
  public String toString() {
    return "TransportMetrics{" + side.tag() + " " + scope + " " + transport + ": calls " + activeCalls() + " active, "
        + callsStarted() + " started; connections " + connections() + ", handshakes in progress "
        + handshakesInProgress() + ", refusals " + refusals() + "}";
  }
}
