package dev.tern.transport.udp.rpc;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.ProtocolVersions;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.connection.SessionTicket;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.handshake.HandshakeError;
import dev.tern.transport.udp.nio.Pump;
import dev.tern.transport.udp.nio.QlogWriter;
import dev.tern.transport.udp.nio.UdpClientEndpoint;
import dev.tern.transport.udp.stream.Stream;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A client connection of the {@code udp} transport: one {@link UdpClientEndpoint} (socket, loop
 * thread, protocol connection) and the calls on it, one per stream. Calls made before the
 * handshake completes wait, then open as stream slots allow. All state is confined to the
 * endpoint's loop; public methods hand their work to it.
 *
 * <p>It reports to the {@link TransportOptions#EVENTS} it was given: its endpoint the bytes and
 * the packets declared lost ({@link UdpClientEndpoint}); its calls the streams the server reset.
 */
final class UdpClientTransport implements ClientTransport, ConnectionListener, Pump {
  private final InetSocketAddress address;
  final String authority;
  final TransportOptions options;
  /** Where the transport reports its events; read once. */
  final TransportEvents events;
  final int maxInboundMessageBytes;
  final int maxHeaderBytes;
  private final int[] ourVersions;
  final ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
  private volatile UdpClientEndpoint endpoint;
  private Listener listener;
  private Connection connection;
  private final Map<Long, UdpClientStream> byId = new HashMap<>();
  private final ArrayDeque<UdpClientStream> waiting = new ArrayDeque<>();
  /** A stream closed while calls wait for a slot: the next pump opens them. */
  private boolean openPending;
  private int openCalls;
  private volatile boolean ready;
  private boolean shutdown;
  /** Set once transportShutdown was reported, on the loop or (for a loop already gone) a caller. */
  private final java.util.concurrent.atomic.AtomicBoolean shutdownReported =
      new java.util.concurrent.atomic.AtomicBoolean();
  private boolean closing;
  private long handshakeDeadlineNs = Long.MAX_VALUE;
  /** A connection that heard nothing for this long is checked before a call goes out on it. */
  private final long quietCheckNs;
  /** A check is out: calls wait until a packet arrives after {@link #heardAtCheckNs}. */
  private boolean checking;
  private long heardAtCheckNs;
  private volatile int version;
  private volatile ConnectionInfo info;
  /** The connection's count of its own address changes when {@link #info} was last built. */
  private long addressChangesSeen;
  /** How often, at most, the loop rebuilds {@link #info} while the connection is up, ns. */
  static final long INFO_REFRESH_NS = 100_000_000L;
  /** When {@link #info} was last built ({@link System#nanoTime()}); on the loop. */
  private long infoRefreshedNs;
  private volatile Status failure;
  /** Where tickets are kept for this server and key; null until started. */
  private ClientTickets tickets;
  /** The RPC version of early requests (the ticket's connection's), 0 without a ticket. */
  private int earlyVersion;
  /**
   * The longest a resuming connection holds its first flight for the early calls' requests:
   * 5 ms, under 3% of a mobile round trip, paid only by a resumption without a complete early
   * request (its calls are streaming or not allowed early data).
   */
  static final long FIRST_FLIGHT_HOLD_NS = TimeUnit.MILLISECONDS.toNanos(5);
  /** Whether the endpoint holds the first flight for an early request; on the loop. */
  private boolean holdingFirstFlight;
  /** Whether the outcome of a resumption was reported (TransportEvents.earlyData). */
  private boolean earlyDataReported;
  /** The connection's qlog file, or null (docs/protocol.md §10.9); written on the loop. */
  private QlogWriter qlog;

  UdpClientTransport(InetSocketAddress address, String authority, TransportOptions options) {
    this.address = address;
    this.authority = authority != null ? authority
        : address.getHostString() + ":" + address.getPort();
    this.options = options;
    this.events = options.get(TransportOptions.EVENTS);
    this.maxInboundMessageBytes = options.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE);
    this.maxHeaderBytes = Math.max(options.get(TransportOptions.MAX_INBOUND_METADATA_SIZE),
        1024);
    this.ourVersions = options.get(TransportOptions.PROTOCOL_VERSIONS).clone();
    long keepAlive = options.get(TransportOptions.KEEP_ALIVE_MILLIS);
    this.quietCheckNs = TimeUnit.MILLISECONDS.toNanos(keepAlive > 0 && keepAlive < UdpTransportOptions.KEEP_ALIVE_OFF_MILLIS
        ? keepAlive : UdpTransportOptions.DEFAULT_KEEP_ALIVE_MILLIS);
    this.info = ConnectionInfo.builder(UdpTransportProvider.NAME).remoteAddress(address).build();
  }

  @Override
  public void start(Listener listener) {
    if (this.listener != null) {
      throw new IllegalStateException("already started");
    }
    this.listener = Objects.requireNonNull(listener, "listener");
    ConnectionConfig config;
    try {
      config = UdpTokens.withStoredToken(UdpTransportOptions.client(options), options,
          authority);
    } catch (IllegalArgumentException e) {
      failUnstarted(Status.UNAVAILABLE.withDescription("udp connection to " + address
          + " not attempted: " + e.getMessage()));
      return;
    }
    try {
      // docs/protocol.md §9.10: one ticket per connection, taken from the channel's session
      // store; the calls allowed early data then go in 0-RTT packets.
      tickets = new ClientTickets(options, authority,
          options.get(UdpTransportOptions.SERVER_KEY_ID),
          options.get(UdpTransportOptions.PINNED_SERVER_KEY));
      ClientTickets.Entry t = tickets.take(System.currentTimeMillis());
      if (t != null) {
        config = config.withResumption(t.ticket());
        earlyVersion = t.rpcVersion();
      }
    } catch (RuntimeException ex) {
      tickets = null; // a failing session store costs the resumption, not the connection
    }
    if (address.isUnresolved()) {
      failUnstarted(Status.UNAVAILABLE.withDescription("udp connection to " + address
          + " not attempted: the address is unresolved"));
      return;
    }
    UdpClientEndpoint e;
    try {
      // Known before the loop starts: on loopback the handshake can complete, and the channel
      // hand this transport a call, before connect returns.
      long timeoutMs = options.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS);
      e = UdpClientEndpoint.connect(address, config, this, "tern-udp-client " + address, events, x -> {
        endpoint = x;
        // Before the loop's first turn (Thread.start publishes them to it).
        handshakeDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        connection = x.connection();
        qlog = Qlogs.open(options, connection, true, System.nanoTime());
        // Keep-alive runs while calls are open; without calls too if asked (docs/protocol.md
        // §10.7).
        connection.setKeepConnected(options.get(TransportOptions.KEEP_ALIVE_WITHOUT_CALLS));
        if (earlyVersion > 0) {
          // The call layer opens its early calls right after start returns: their requests
          // go in the first flight, not after a handshake that loopback could finish first.
          holdingFirstFlight = true;
          x.holdFirstFlight(FIRST_FLIGHT_HOLD_NS);
        }
        x.setPump(this);
        x.impair(options.get(UdpTransportOptions.IMPAIRMENT));
      });
    } catch (java.io.IOException | RuntimeException ex) {
      endpoint = null;
      failUnstarted(Status.UNAVAILABLE.withDescription("cannot open a UDP socket to " + address
          + ": " + ex).withCause(ex));
      return;
    }
    e.terminated().whenComplete((v, t) -> endpointEnded());
  }

  /** The transport could not even start: it reports shutdown and termination at once. */
  private void failUnstarted(Status status) {
    failure = status;
    shutdown = true;
    shutdownReported.set(true);
    listener.transportShutdown(status);
    listener.transportTerminated();
  }

  Connection connection() {
    return connection;
  }

  /**
   * The streams this transport still holds, for tests that prove none is kept after its call:
   * {calls bound to a stream, calls waiting for one, the core connection's live streams}. Taken
   * on the loop; the future fails if the loop has ended.
   */
  CompletableFuture<int[]> streamCounts() {
    CompletableFuture<int[]> f = new CompletableFuture<>();
    if (!run(() -> f.complete(new int[] {byId.size(), waiting.size(),
        connection == null ? 0 : connection.streamCount()}))) {
      f.completeExceptionally(new IllegalStateException("the transport has terminated"));
    }
    return f;
  }

  /** Runs {@code task} on the loop; false once the transport has terminated. */
  boolean run(Runnable task) {
    UdpClientEndpoint e = endpoint;
    return e != null && e.tryExecute(task);
  }

  @Override
  public ClientStream newStream(RequestHeaders headers, ClientStreamListener listener) {
    UdpClientStream s = new UdpClientStream(this, headers, listener, ready);
    if (!run(() -> register(s))) {
      Status why = failure != null ? failure
          : Status.UNAVAILABLE.withDescription("udp transport to " + address + " has terminated");
      s.ended = true;
      // The loop has ended but may not have told the channel yet: tell it now, so that the call
      // layer's replay of this never-sent call goes to a new connection, not to this one.
      if (shutdownReported.compareAndSet(false, true)) {
        this.listener.transportShutdown(why);
      }
      listener.onNotSent(why);
    }
    return s;
  }

  private void register(UdpClientStream s) {
    openCalls++;
    if (shutdown || closing) {
      // Never sent: the call layer may send it again on another connection (it can reach a
      // transport whose end it has not heard of yet).
      Status why = failure != null
          ? Status.UNAVAILABLE.withDescription(failure.getDescription()
              + "; the call was not sent, safe to retry on a new connection")
          : Status.UNAVAILABLE.withDescription("udp transport to " + address + " is shut down");
      s.refuseUnsent(why);
      return;
    }
    waiting.add(s);
    openWaiting();
  }

  /**
   * Opens waiting calls while the connection has stream slots (RFC 9000 §4.6). A connection that
   * heard nothing from its server for a keep-alive interval may have lost it (a crash, a restart:
   * the server keeps no state and stays silent), and a call sent into it could neither be answered
   * nor be sent again safely, since the server may have received it. So the calls wait while a
   * PING checks it: its acknowledgement opens them one round trip later; without one, the
   * connection's dead-peer detection (three probe timeouts) ends it, and the calls, never sent,
   * are refused unprocessed and sent again on a new connection.
   */
  private void openWaiting() {
    if (connection == null || waiting.isEmpty()) {
      return;
    }
    if (!ready) {
      openEarly();
      return;
    }
    if (checking) {
      if (connection.lastHeardNs() == heardAtCheckNs) {
        return; // the check's answer has not come yet
      }
      checking = false;
    } else if (System.nanoTime() - connection.lastHeardNs() >= quietCheckNs) {
      checking = true;
      heardAtCheckNs = connection.lastHeardNs();
      connection.checkPeer();
      return;
    }
    UdpClientStream s;
    while ((s = waiting.peek()) != null) {
      if (s.ended) {
        waiting.poll();
        continue;
      }
      Stream st = connection.openStream();
      if (st == null) {
        return; // the server's limit: a closed stream or MAX_STREAMS frees a slot
      }
      waiting.poll();
      byId.put(st.id(), s);
      s.open(st, version);
    }
  }

  /**
   * Before the handshake completes, with a ticket that allows early data: opens the waiting
   * calls allowed early data (idempotent methods, or calls that opt in; the call layer's
   * {@code earlyDataAllowed}) so that their requests go in 0-RTT packets (docs/protocol.md §9.10).
   * Other calls wait for the handshake. If the server rejects the early data, the connection
   * sends it again in 1-RTT packets: the calls do not notice.
   */
  /**
   * A call's request is complete (half-closed), on the loop: a first flight held for early
   * requests goes now, with it.
   */
  void requestComplete() {
    if (holdingFirstFlight) {
      holdingFirstFlight = false;
      endpoint.releaseFirstFlight();
    }
  }

  private void openEarly() {
    if (earlyVersion <= 0 || !connection.canSendEarlyData()) {
      return;
    }
    for (java.util.Iterator<UdpClientStream> it = waiting.iterator(); it.hasNext(); ) {
      UdpClientStream s = it.next();
      if (s.ended) {
        it.remove();
        continue;
      }
      if (!s.earlyDataAllowed()) {
        continue;
      }
      Stream st = connection.openStream();
      if (st == null) {
        return;
      }
      it.remove();
      byId.put(st.id(), s);
      s.open(st, earlyVersion);
    }
  }

  @Override
  public void onTicket(Connection c, SessionTicket ticket) {
    ClientTickets t = tickets;
    if (t != null && version > 0) {
      try {
        t.add(ticket, version);
      } catch (RuntimeException ex) {
        // a failing session store costs the next connection its resumption, nothing more
      }
    }
  }

  /** A call ended (its listener is being told); on the loop. */
  void callEnded(UdpClientStream s) {
    openCalls--;
    waiting.remove(s);
    refreshInfo(); // a caller that reads the statistics after a call sees the call in them
    maybeClose();
  }

  private void maybeClose() {
    if (shutdown && openCalls == 0 && !closing) {
      closeConnection(0, "transport shut down");
    }
  }

  private void closeConnection(long code, String reason) {
    closing = true;
    if (connection != null && connection.state() != ConnectionState.CLOSED) {
      connection.close(code, reason);
    } else if (endpoint != null) {
      endpoint.abort();
    }
  }

  // ---- pump --------------------------------------------------------------------------------

  @Override
  public void pump(long nowNs) {
    openPending = false;
    if (!ready && !closing && nowNs - handshakeDeadlineNs >= 0) {
      fail(Status.UNAVAILABLE.withDescription("udp handshake with " + address
          + " did not finish in " + options.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS)
          + " ms"));
      return;
    }
    openWaiting();
    if (closing && connection != null && connection.state() == ConnectionState.CLOSED) {
      endpoint.abort();
    }
    if (ready && connection != null && connection.stats().localAddressChanges != addressChangesSeen) {
      // The endpoint moved to a new socket: the connection's local address is another one now.
      addressChangesSeen = connection.stats().localAddressChanges;
      refreshInfo();
    } else if (ready && connection != null && nowNs - infoRefreshedNs >= INFO_REFRESH_NS) {
      // The statistics of a long call (a download) move while it runs: a fresh snapshot now and
      // then, never per packet.
      refreshInfo();
    }
  }

  /**
   * The device's network changed (an interface event): the connection moves to a socket sending
   * from the address the system now chooses, without waiting for a send to be refused (RFC 9000
   * §9.2); its calls carry on.
   *
   * @return true: the connection moves itself
   */
  @Override
  public boolean networkChanged() {
    rebind();
    return true;
  }

  /** As {@link #networkChanged()}. */
  void rebind() {
    UdpClientEndpoint e = endpoint;
    if (e != null) {
      e.rebind();
    }
  }

  @Override
  public long nextDeadlineNs() {
    if (openPending) {
      return System.nanoTime(); // a slot was freed after this turn's pump: use it next turn
    }
    return ready || closing ? Long.MAX_VALUE : handshakeDeadlineNs;
  }

  // ---- connection events -------------------------------------------------------------------

  /** The server's NEW_TOKEN token, for the next connection (docs/protocol.md §9.8). */
  @Override
  public void onNewToken(Connection c, byte[] token) {
    UdpTokens.remember(options, authority, token);
  }

  @Override
  public void onHandshakeComplete(Connection c) {
    connection = c;
    long[] peer = c.peerRpcVersions();
    int[] theirs = new int[peer.length];
    for (int i = 0; i < peer.length; i++) {
      theirs[i] = (int) Math.min(Integer.MAX_VALUE, peer[i]);
    }
    OptionalInt v = ProtocolVersions.highestCommon(ourVersions, theirs);
    if (!v.isPresent()) {
      Status status = ProtocolVersions.noCommonVersion(ourVersions, theirs);
      fail(status);
      return;
    }
    version = v.getAsInt();
    if (c.resumed() && !earlyDataReported) {
      earlyDataReported = true;
      events.earlyData(c.earlyDataAccepted());
    }
    ready = true;
    refreshInfo();
    if (!shutdownReported.get()) {
      listener.transportReady(info);
    }
    openWaiting();
  }

  @Override
  public void onClosed(Connection c, TransportError error, long code, String reason,
      boolean byPeer) {
    if (qlog != null) {
      qlog.closed(System.nanoTime(), byPeer, error + " " + code + " " + reason);
    }
    if (closing && !byPeer) {
      return;
    }
    String why;
    if (error == TransportError.IDLE_TIMEOUT) {
      why = "timed out: nothing heard for the idle timeout";
    } else if (error == TransportError.KEEP_ALIVE_TIMEOUT || error == TransportError.PEER_UNRESPONSIVE) {
      why = "is dead: " + reason;
    } else if (error == TransportError.STATELESS_RESET) {
      why = "is gone: " + reason;
    } else if (byPeer) {
      why = "closed by the server (" + describe(error, code, reason) + ")";
    } else {
      why = "closed (" + describe(error, code, reason) + ")";
    }
    Status status = Status.UNAVAILABLE.withDescription("udp connection to " + address + " " + why);
    if (byPeer && error == TransportError.CRYPTO_ERROR
        && code == HandshakeError.CLIENT_NOT_ALLOWED.wireCode()) {
      // Client authentication (docs/udp-crypto.md §5.2): the server proved the client's key and
      // does not admit it. Retrying cannot help; the caller's credentials are at fault.
      status = Status.UNAUTHENTICATED.withDescription("udp server " + address
          + " refused this client: its static key is not one the server admits ("
          + describe(error, code, reason) + ")");
    }
    if (error == TransportError.STATELESS_RESET) {
      failReset(status, c.statelessResetUptimeMs());
      return;
    }
    if (byPeer && !ready && error == TransportError.CRYPTO_ERROR
        && code == HandshakeError.UNKNOWN_TICKET.wireCode()) {
      // The server refused the ticket (expired, unknown to it, or used): the handshake failed,
      // so it opened no 0-RTT packet and processed no call; they go again on a new connection,
      // which takes another ticket or none.
      Status refused = Status.UNAVAILABLE.withDescription(status.getDescription()
          + "; the call was not processed, safe to retry on a new connection");
      end(status, refused, s -> true, refused);
      return;
    }
    if (byPeer && error == TransportError.APPLICATION_ERROR && code == RpcFraming.CLOSE_DRAINED) {
      // The server drained the connection and closed it with none of its calls left
      // (docs/protocol.md §10.7): a call still open here was never processed.
      failDrained(status);
      return;
    }
    fail(status, true);
  }

  /**
   * The server refused a call unprocessed, which it does only while it drains the connection
   * (its shutdown, the connection's age or idleness; docs/protocol.md §10.7): as after HTTP/2's
   * GOAWAY, the transport takes no more calls, so the channel replays the refused one, and sends
   * later ones, on another connection; calls already open go on, and the connection closes when
   * they are done. On the loop.
   */
  void drainedByServer(Status refusal) {
    if (shutdown) {
      return;
    }
    shutdown = true;
    if (shutdownReported.compareAndSet(false, true)) {
      listener.transportShutdown(Status.UNAVAILABLE.withDescription("udp server " + address
          + " is draining the connection: " + refusal.getDescription()));
    }
    for (UdpClientStream s : new ArrayList<>(waiting)) {
      s.refuseUnsent(Status.UNAVAILABLE.withDescription("udp server " + address
          + " is draining the connection: the call was not sent"));
    }
  }

  /**
   * The server's stateless reset ended the connection: it restarted (or lost its state). With the
   * uptime it proved (docs/protocol.md §8), a call whose stream opened after the new process bound
   * its socket reached only that process, which dropped it unread: it is refused unprocessed for
   * the call layer to send again, as is a call never sent. Any other may have reached the old
   * process and fails. On the loop, at the reset's receipt.
   */
  private void failReset(Status status, long provenUptimeMs) {
    // Bound before now - uptime (the reset took time to come, the uptime is rounded down); 2 ms
    // more for the two clocks' rates.
    long boundBefore = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(provenUptimeMs)
        + TimeUnit.MILLISECONDS.toNanos(2);
    boolean proven = provenUptimeMs >= 0;
    Status reset = proven ? status.withDescription(status.getDescription() + ", " + provenUptimeMs + " ms ago")
        : status;
    end(reset, Status.UNAVAILABLE.withDescription(status.getDescription()
            + "; the call was not sent, safe to retry on a new connection"),
        s -> proven && s.openedAtNs() != 0 && s.openedAtNs() - boundBefore > 0,
        Status.UNAVAILABLE.withDescription(reset.getDescription()
            + "; the call was not processed (sent only to the restarted server), safe to retry on a new connection"));
  }

  /** As {@link #fail}, but calls that heard nothing of the server end as refused unprocessed. */
  private void failDrained(Status status) {
    end(status, status, s -> true, status);
  }

  /**
   * Ends the transport with {@code status}: calls never sent are refused with {@code unsent}; an
   * open call that {@code unprocessed} says the server cannot have processed, and that has heard
   * nothing of it, is refused with {@code refusal}; every other call fails with {@code status}.
   */
  private void end(Status status, Status unsent, java.util.function.Predicate<UdpClientStream> unprocessed,
      Status refusal) {
    if (failure == null) {
      failure = status;
    }
    shutdown = true;
    if (shutdownReported.compareAndSet(false, true)) {
      listener.transportShutdown(status);
    }
    for (UdpClientStream s : new ArrayList<>(waiting)) {
      s.refuseUnsent(unsent);
    }
    for (UdpClientStream s : new ArrayList<>(byId.values())) {
      s.failOrRefuse(status, unprocessed.test(s), refusal);
    }
    closing = true;
  }

  private static String describe(TransportError error, long code, String reason) {
    String r = reason == null || reason.isEmpty() ? "" : ": " + reason;
    if (error == TransportError.CRYPTO_ERROR) {
      // RFC 9000 §20.1: the code says which handshake step failed (docs/udp-crypto.md §5.3).
      HandshakeError h = HandshakeError.ofWireCode(code);
      return "CRYPTO_ERROR 0x" + Long.toHexString(code) + (h == null ? "" : " " + h) + r;
    }
    return (error == TransportError.APPLICATION_ERROR ? "application code " + code
        : String.valueOf(error)) + r;
  }

  @Override
  public void onReadable(Stream s) {
    UdpClientStream c = byId.get(s.id());
    if (c != null) {
      c.pull();
    } else {
      drop(s);
    }
  }

  /** Reads and drops the bytes of a stream no call owns any more. */
  private void drop(Stream s) {
    int n;
    do {
      ((Buffer) scratch).clear();
      n = connection.read(s, scratch);
    } while (n > 0);
  }

  @Override
  public void onWritable(Stream s) {
    UdpClientStream c = byId.get(s.id());
    if (c != null) {
      c.drain();
    }
  }

  @Override
  public void onReset(Stream s, long code) {
    UdpClientStream c = byId.get(s.id());
    if (c != null) {
      c.onPeerReset(code);
    }
  }

  @Override
  public void onStopSending(Stream s, long code) {
    UdpClientStream c = byId.get(s.id());
    if (c != null) {
      c.onPeerStopSending(code);
    }
  }

  @Override
  public void onClosed(Stream s) {
    UdpClientStream c = byId.remove(s.id());
    if (c != null) {
      c.onCoreClosed();
    }
    // The freed slot is used on this loop turn's pump, not here: the core closes a stream from
    // inside a read, an acknowledgement or a reset, and a call opened now would start reading
    // (into the shared scratch buffer) while the closing call's read still holds its bytes there.
    openPending |= !waiting.isEmpty();
  }

  /** The status a call gets when the peer resets its stream with {@code code}. */
  static Status resetStatus(long code, String who) {
    String what = "the " + who + " reset the stream (code " + code + ")";
    if (code == RpcFraming.CODE_CANCELLED || code == RpcFraming.CODE_NO_ERROR) {
      return Status.CANCELLED.withDescription(what);
    }
    if (code == RpcFraming.CODE_REFUSED) {
      return Status.UNAVAILABLE.withDescription(what + ": the call was not processed");
    }
    return Status.INTERNAL.withDescription(what);
  }

  // ---- shutdown ----------------------------------------------------------------------------

  /** Fails every call with {@code status}, reports shutdown, and closes; on the loop. */
  private void fail(Status status) {
    fail(status, false);
  }

  /**
   * As {@link #fail(Status)}; with {@code lost} (the established connection is gone: the server
   * closed it, stopped answering, or nothing listens at its port any more) the calls still
   * waiting, never sent, end as refused unprocessed, so that the call layer sends them again on
   * a new connection. Shutdown is reported before, so that they do not come back to this one.
   */
  private void fail(Status status, boolean lost) {
    if (failure == null) {
      failure = status;
    }
    shutdown = true;
    if (shutdownReported.compareAndSet(false, true)) {
      listener.transportShutdown(status);
    }
    boolean refuse = lost && ready;
    for (UdpClientStream s : new ArrayList<>(waiting)) {
      if (refuse) {
        s.refuseUnsent(Status.UNAVAILABLE.withDescription(status.getDescription()
            + "; the call was not sent, safe to retry on a new connection"));
      } else {
        s.fail(status, RpcFraming.CODE_CANCELLED);
      }
    }
    for (UdpClientStream s : new ArrayList<>(byId.values())) {
      s.fail(status, RpcFraming.CODE_CANCELLED);
    }
    if (!closing) {
      long code = status.getCode() == Status.Code.FAILED_PRECONDITION
          ? RpcFraming.CLOSE_NO_COMMON_VERSION : 0;
      closeConnection(code, status.getDescription());
    }
  }

  /** The endpoint ended (its socket is closed); on the loop thread, its last act. */
  private void endpointEnded() {
    if (qlog != null) {
      qlog.close(); // the loop has ended: nothing writes to it any more
    }
    Throwable t = endpoint.failure();
    Status status;
    if (t instanceof PortUnreachableException) {
      status = Status.UNAVAILABLE.withDescription(ready
          ? "udp connection to " + address + " is dead: nothing listens on UDP " + address
              + " any more (port unreachable); the server has crashed or is restarting"
          : "nothing listens on UDP " + address + " (port unreachable)").withCause(t);
    } else if (t != null) {
      status = Status.UNAVAILABLE.withDescription("udp connection to " + address + " failed: "
          + t).withCause(t);
    } else {
      status = Status.UNAVAILABLE.withDescription("udp connection to " + address + " closed");
    }
    closing = true;
    fail(status, true);
    listener.transportTerminated();
  }

  private void refreshInfo() {
    infoRefreshedNs = System.nanoTime();
    Connection c = connection;
    ConnectionInfo.Builder b = ConnectionInfo.builder(UdpTransportProvider.NAME)
        .protocolVersion(version).remoteAddress(address);
    UdpClientEndpoint e = endpoint;
    if (e != null) {
      b.localAddress(e.localAddress());
    }
    if (c != null) {
      Infos.fill(b, c);
    }
    info = b.build();
  }

  @Override
  public ConnectionInfo connectionInfo() {
    return info;
  }

  @Override
  public void shutdown() {
    run(() -> {
      shutdown = true;
      if (shutdownReported.compareAndSet(false, true)) {
        listener.transportShutdown(Status.UNAVAILABLE.withDescription("transport shutdown"));
      }
      maybeClose();
    });
  }

  @Override
  public void shutdownNow(Status status) {
    run(() -> fail(status));
  }

  @Override
  public String toString() {
    return "UdpClientTransport{" + address + ", version=" + version + '}';
  }
}
