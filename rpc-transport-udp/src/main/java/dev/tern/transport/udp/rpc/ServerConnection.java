package dev.tern.transport.udp.rpc;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.ProtocolVersions;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.nio.QlogWriter;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.Stream;
import dev.tern.transport.udp.util.Saturating;
import io.grpc.Attributes;
import io.grpc.SecurityLevel;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One client connection of a {@link UdpServerTransport}: its calls by stream ID, the Tern
 * protocol version agreed in its handshake, what it reports of itself, and the server's limits on
 * it (docs/protocol.md §10.7), as grpc-netty carries them out: past {@code maxConnectionAge}
 * (±10% jitter) or with no call for {@code maxConnectionIdle} the connection is drained, and once
 * {@code maxConnectionAgeGrace} has passed too it is closed with the calls still on it. Loop
 * thread only, except {@link #info()}.
 *
 * <p>Draining is the protocol's graceful end: new calls are refused unprocessed (0x3, §10.5), which
 * also tells the client to take no more calls here; the calls already running go on; once none
 * is left and everything sent has been acknowledged, the connection closes with {@link
 * RpcFraming#CLOSE_DRAINED}, which tells the client that no call it still has open here was
 * processed. One whose acknowledgements do not come within {@link #QUIESCE_GRACE_NS} is closed
 * with code 0 instead.
 */
final class ServerConnection implements ConnectionListener {
  /** How long a drained connection with no call left waits for its last acknowledgements. */
  static final long QUIESCE_GRACE_NS = 2_000_000_000L;

  final UdpServerTransport transport;
  final Connection connection;
  private final Map<Long, UdpServerStream> streams = new HashMap<>();
  private int calls;
  private volatile int version;
  private volatile ConnectionInfo info;
  private boolean closed;
  /** Why the connection is drained (its age, idleness, the server's shutdown); null if it is not. */
  private String drainedFor;
  private long ageDeadlineNs = Long.MAX_VALUE;
  private long idleDeadlineNs = Long.MAX_VALUE;
  private long graceDeadlineNs = Long.MAX_VALUE;
  private long quiesceDeadlineNs = Long.MAX_VALUE;
  private final long idleNs;
  /** The call layer's listener of this connection's events, told of it on its first datagram. */
  private final ServerTransportListener.ConnectionListener events;
  /** What {@code connectionReady} returned, once the handshake is done; null before. */
  private volatile Attributes attributes;
  private boolean terminatedReported;
  /** The connection's qlog file, or null (docs/protocol.md §10.9). */
  private final QlogWriter qlog;

  ServerConnection(UdpServerTransport transport, Connection connection, long nowNs) {
    this.transport = transport;
    this.connection = connection;
    this.qlog = Qlogs.open(transport.options, connection, false, nowNs);
    this.info = ConnectionInfo.builder(UdpTransportProvider.NAME).build();
    TransportOptions o = transport.options;
    long keepAlive = o.get(TransportOptions.KEEP_ALIVE_MILLIS);
    if (keepAlive > 0 && keepAlive < UdpTransportOptions.KEEP_ALIVE_OFF_MILLIS) {
      // A server's keepAliveTime pings every connection, with calls or without (as grpc-java).
      connection.setKeepConnected(true);
    }
    long age = o.get(TransportOptions.MAX_CONNECTION_AGE_MILLIS);
    if (age > 0) {
      double jitter = 0.9 + 0.2 * ThreadLocalRandom.current().nextDouble();
      ageDeadlineNs = Saturating.add(nowNs, Math.max(1, Saturating.msToNs((long) (age * jitter))));
    }
    idleNs = Saturating.msToNs(Math.max(0, o.get(TransportOptions.IDLE_TIMEOUT_MILLIS)));
    if (idleNs > 0) {
      idleDeadlineNs = Saturating.add(nowNs, idleNs);
    }
    // The call layer closes a connection whose handshake outlasts the server's handshake timeout.
    this.events = transport.listener().connectionCreated(status -> transport.run(() -> closeNow(status)));
  }

  /** The attributes of this connection's streams; null before its handshake completed. */
  Attributes attributes() {
    return attributes;
  }

  /** Tells the call layer the connection has ended, once; on the loop (or after it ended). */
  void reportTerminated() {
    if (!terminatedReported) {
      terminatedReported = true;
      if (qlog != null) {
        qlog.close();
      }
      events.connectionTerminated();
    }
  }

  /** Cancels every call with {@code status} and closes the connection; on the loop. */
  private void closeNow(Status status) {
    cancelAll(status);
    connection.close(0, status.getDescription() == null ? status.getCode().toString() : status.getDescription());
  }

  int calls() {
    return calls;
  }

  boolean acceptsCalls() {
    return !transport.isShutdown() && !closed && drainedFor == null;
  }

  boolean isDraining() {
    return drainedFor != null;
  }

  void callStarted(UdpServerStream s) {
    calls++;
    idleDeadlineNs = Long.MAX_VALUE;
    refreshInfo();
  }

  void callEnded(UdpServerStream s) {
    calls--;
    refreshInfo(); // the client may have moved (RFC 9000 §9.3) since the call began
    if (calls == 0 && idleNs > 0 && drainedFor == null) {
      // grpc-java's maxConnectionIdle counts from the moment the last call ended.
      idleDeadlineNs = Saturating.add(System.nanoTime(), idleNs);
      transport.wakeAt(idleDeadlineNs);
    }
  }

  /** The next instant {@link #check} has something to do, Long.MAX_VALUE for none. */
  long nextDeadlineNs() {
    if (closed) {
      return Long.MAX_VALUE;
    }
    if (drainedFor == null) {
      return Math.min(ageDeadlineNs, calls == 0 ? idleDeadlineNs : Long.MAX_VALUE);
    }
    return calls > 0 ? graceDeadlineNs : quiesceDeadlineNs;
  }

  /**
   * Carries out the limits due at {@code nowNs}, and closes a drained connection that has no
   * call left; on the loop.
   */
  void check(long nowNs) {
    if (closed) {
      return;
    }
    if (drainedFor == null) {
      if (due(ageDeadlineNs, nowNs)) {
        drain("its maximum age has passed");
        long grace = transport.options.get(TransportOptions.MAX_CONNECTION_AGE_GRACE_MILLIS);
        if (grace > 0) {
          graceDeadlineNs = Saturating.add(nowNs, Saturating.msToNs(grace));
        }
      } else if (calls == 0 && due(idleDeadlineNs, nowNs)) {
        drain("it had no call for its maximum idle time");
      } else {
        return;
      }
    }
    if (calls > 0) {
      if (due(graceDeadlineNs, nowNs)) {
        connection.close(0, "connection closed: " + drainedFor + " and so has its grace time ("
            + transport.options.get(TransportOptions.MAX_CONNECTION_AGE_GRACE_MILLIS) + " ms)");
      }
      return;
    }
    if (quiesceDeadlineNs == Long.MAX_VALUE) {
      quiesceDeadlineNs = Saturating.add(nowNs, QUIESCE_GRACE_NS);
    }
    if (connection.state() != ConnectionState.ESTABLISHED) {
      // Still in its handshake: nothing of the client's was processed, but the client cannot
      // read a 1-RTT close yet either; the close goes as the protocol allows (docs/protocol.md §8).
      connection.close(RpcFraming.CLOSE_DRAINED, "connection drained: " + drainedFor);
    } else if (connection.streamsSettled()) {
      // Every response was acknowledged. A packet still unacknowledged (a PMTU probe, a PING,
      // sent after the last call) carries no call's bytes: waiting for it could only turn a
      // clean close into one whose calls the client must take for processed.
      connection.close(RpcFraming.CLOSE_DRAINED, "connection drained: " + drainedFor);
    } else if (due(quiesceDeadlineNs, nowNs)) {
      // A response is still unacknowledged: it may not have arrived, so the client must not
      // take its calls for unprocessed.
      connection.close(0, "connection drained: " + drainedFor
          + "; closed before every response was acknowledged");
    }
  }

  private static boolean due(long deadlineNs, long nowNs) {
    return deadlineNs != Long.MAX_VALUE && nowNs - deadlineNs >= 0;
  }

  /** Refuses new calls from now on; the transport checks the connection every turn. */
  void drain(String why) {
    if (drainedFor != null || closed) {
      return;
    }
    drainedFor = why;
    transport.draining(this);
  }

  ConnectionInfo info() {
    return info;
  }

  private void refreshInfo() {
    info = Infos.fill(ConnectionInfo.builder(UdpTransportProvider.NAME).protocolVersion(version)
        .localAddress(transport.listenAddress()).remoteAddress(transport.remoteAddress(connection)), connection)
        .build();
  }

  @Override
  public void onHandshakeComplete(Connection c) {
    long[] peer = c.peerRpcVersions();
    int[] theirs = new int[peer.length];
    for (int i = 0; i < peer.length; i++) {
      theirs[i] = (int) Math.min(Integer.MAX_VALUE, peer[i]);
    }
    OptionalInt v = ProtocolVersions.highestCommon(transport.versions, theirs);
    // With no common version the client closes the connection (it names both sides' versions).
    version = v.isPresent() ? v.getAsInt() : 0;
    if (c.resumed()) {
      // docs/protocol.md §9.10: a resumed client's early data, accepted or rejected.
      transport.events.earlyData(c.earlyDataAccepted());
    }
    refreshInfo();
    if (attributes == null && !terminatedReported) {
      // Always encrypted: the Noise handshake (docs/udp-crypto.md).
      Attributes.Builder a = ConnectionAttributes.of(info, SecurityLevel.PRIVACY_AND_INTEGRITY)
          .toBuilder();
      byte[] clientKey = c.peerStaticKey();
      if (clientKey != null) {
        a.set(UdpTransportOptions.CLIENT_PUBLIC_KEY, clientKey);
      }
      attributes = events.connectionReady(a.build());
    }
  }

  /** The streams this connection maps to their calls; on the loop. */
  int streamCount() {
    return streams.size();
  }

  @Override
  public void onStreamOpened(Stream s) {
    streams.put(s.id(), new UdpServerStream(this, s));
  }

  @Override
  public void onReadable(Stream s) {
    UdpServerStream st = streams.get(s.id());
    if (st != null) {
      st.pull();
    }
  }

  @Override
  public void onWritable(Stream s) {
    UdpServerStream st = streams.get(s.id());
    if (st != null) {
      st.drain();
    }
  }

  @Override
  public void onReset(Stream s, long code) {
    UdpServerStream st = streams.get(s.id());
    if (st != null) {
      st.onPeerCancelled("the client cancelled the call (stream reset, code " + code + ")",
          false);
    }
  }

  @Override
  public void onStopSending(Stream s, long code) {
    UdpServerStream st = streams.get(s.id());
    if (st != null) {
      st.onPeerCancelled("the client stopped the response (code " + code + ")", true);
    }
  }

  @Override
  public void onClosed(Stream s) {
    UdpServerStream st = streams.remove(s.id());
    if (st != null) {
      st.onCoreClosed();
    }
  }

  @Override
  public void onClosed(Connection c, TransportError error, long code, String reason,
      boolean byPeer) {
    if (closed) {
      return;
    }
    if (qlog != null) {
      qlog.closed(System.nanoTime(), byPeer, error + " " + code + " " + reason);
    }
    closed = true;
    String why = error == TransportError.IDLE_TIMEOUT ? "timed out"
        : error == TransportError.KEEP_ALIVE_TIMEOUT ? "is dead: " + reason
        : (byPeer ? "closed by the client" : "closed") + " (" + error + (reason == null
            || reason.isEmpty() ? "" : ": " + reason) + ")";
    Status status = Status.UNAVAILABLE.withDescription("udp connection " + why);
    for (UdpServerStream st : new ArrayList<>(streams.values())) {
      st.onConnectionLost(status);
    }
    reportTerminated();
    transport.connectionClosed(this);
  }

  /** Cancels every call with {@code status}; on the loop. */
  void cancelAll(Status status) {
    for (UdpServerStream st : new ArrayList<>(streams.values())) {
      st.cancelNow(status);
    }
  }
}
