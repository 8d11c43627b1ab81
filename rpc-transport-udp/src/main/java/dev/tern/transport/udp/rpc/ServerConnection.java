package dev.tern.transport.udp.rpc;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.ProtocolVersions;
import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.Stream;
import io.grpc.Attributes;
import io.grpc.SecurityLevel;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * One client connection of a {@link UdpServerTransport}: its calls by stream ID, the Tern
 * protocol version agreed in its handshake, and what it reports of itself. Loop thread only,
 * except {@link #info()}.
 */
final class ServerConnection implements ConnectionListener {
  final UdpServerTransport transport;
  final Connection connection;
  private final Map<Long, UdpServerStream> streams = new HashMap<>();
  private int calls;
  private volatile int version;
  private volatile ConnectionInfo info;
  private boolean closed;
  /** The call layer's listener of this connection's events, told of it on its first datagram. */
  private final ServerTransportListener.ConnectionListener events;
  /** What {@code connectionReady} returned, once the handshake is done; null before. */
  private volatile Attributes attributes;
  private boolean terminatedReported;

  ServerConnection(UdpServerTransport transport, Connection connection) {
    this.transport = transport;
    this.connection = connection;
    this.info = ConnectionInfo.builder(UdpTransportProvider.NAME).build();
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
    return !transport.isShutdown() && !closed;
  }

  void callStarted(UdpServerStream s) {
    calls++;
    refreshInfo();
  }

  void callEnded(UdpServerStream s) {
    calls--;
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
    refreshInfo();
    if (attributes == null && !terminatedReported) {
      // Always encrypted: the Noise handshake (docs/udp-crypto.md).
      attributes = events.connectionReady(ConnectionAttributes.of(info, SecurityLevel.PRIVACY_AND_INTEGRITY));
    }
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
    closed = true;
    String why = error == TransportError.IDLE_TIMEOUT ? "timed out"
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
