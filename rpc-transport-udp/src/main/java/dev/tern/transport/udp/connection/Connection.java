package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.congestion.CongestionController;
import dev.tern.transport.udp.congestion.PathCongestion;
import dev.tern.transport.udp.congestion.Pacer;
import dev.tern.transport.udp.crypto.EpochPacketKeys;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.handshake.HandshakeException;
import dev.tern.transport.udp.path.IdlePolicy;
import dev.tern.transport.udp.path.MtuDiscovery;
import dev.tern.transport.udp.frame.FrameReader;
import dev.tern.transport.udp.frame.FrameType;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.recovery.AckTracker;
import dev.tern.transport.udp.recovery.EventLog;
import dev.tern.transport.udp.recovery.Flight;
import dev.tern.transport.udp.recovery.LossDetector;
import dev.tern.transport.udp.recovery.LossListener;
import dev.tern.transport.udp.recovery.RttEstimator;
import dev.tern.transport.udp.recovery.SentPacketLog;
import dev.tern.transport.udp.stream.PriorityScheduler;
import dev.tern.transport.udp.stream.RoundRobinScheduler;
import dev.tern.transport.udp.stream.SendScheduler;
import dev.tern.transport.udp.stream.Stream;
import dev.tern.transport.udp.stream.StreamFrameWriter;
import dev.tern.transport.udp.stream.StreamSet;
import dev.tern.transport.udp.util.Saturating;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Random;

/**
 * A sans-IO connection of Tern's UDP protocol (docs/protocol.md): a state machine fed datagrams
 * and the time, producing datagrams and its next deadline. No sockets, threads or clocks inside.
 *
 * <p>Driver contract: after {@link #onDatagram} or {@link #onTimeout}, call
 * {@link #pollDatagram} until it returns 0, then wait until {@link #nextTimeoutNs()} or the next
 * datagram. Send each datagram to the path {@link #currentPathId()} names. Not thread-safe: one
 * thread owns a connection.
 */
public final class Connection {
  final boolean isClient;
  final ConnectionConfig config;
  final ListenerRelay listener = new ListenerRelay();
  final Random random;
  ConnectionState state = ConnectionState.HANDSHAKING;
  int version;
  final int attemptedVersion;
  final ConnectionId localCid;
  ConnectionId peerCid;
  final ConnectionId originalDcid;
  boolean peerCidLearned;
  boolean versionNegotiated;

  /** Which keys protect each space, and the handshake that makes them. */
  final ConnectionKeys keys = new ConnectionKeys(this);
  final PacketHeader header = new PacketHeader();
  final FrameReader reader = new FrameReader();
  /** Checks an INITIAL packet's frame types before any frame of it is applied. */
  final FrameReader initialCheckReader = new FrameReader();
  final InitialFrameCheck initialCheck = new InitialFrameCheck();
  /** What the packet-number spaces share: bytes in flight, probe backoff. */
  final Flight flight = new Flight();
  /** Initial, Handshake and application (1-RTT) spaces, by {@link PacketSpace} index. */
  final PacketSpace[] spaces = new PacketSpace[PacketSpace.COUNT];
  final PacketSpace initialSpace;
  final PacketSpace appSpace;
  /** The application space's log, detector and tracker (most of the connection uses only it). */
  final SentPacketLog log;
  final RttEstimator rtt = new RttEstimator();
  final PathCongestion cc;
  final Pacer pacer;
  final MtuDiscovery mtu;
  final IdlePolicy idle;
  boolean pingPending;
  /** When the last packet from the peer was processed (or the clock started). */
  long lastHeardNs;
  /** When the first ack-eliciting packet after {@link #lastHeardNs} left; 0: none since. */
  private long firstUnansweredNs;
  /**
   * When the peer is declared dead unless a packet arrives first: set once the probe timeouts of
   * {@link ConnectionConfig#deadAfterProbeTimeouts} have expired; Long.MAX_VALUE otherwise.
   */
  private long peerDeadlineNs = Long.MAX_VALUE;
  /** A server's stateless reset token for its connection ID (RFC 9000 §10.3); null if none. */
  byte[] localResetToken;
  /** A client's: the token the server sent in its ServerHello; null if none. */
  byte[] peerResetToken;
  /** A server's proof key for its connection ID ({@link StatelessReset}); null if none. */
  byte[] localResetProofKey;
  /** A client's: the proof key the server sent in its ServerHello; null if none. */
  byte[] peerResetProofKey;
  /** The uptime a stateless reset proved, in ms; -1 if none did. */
  private long statelessResetUptimeMs = -1;
  /** A {@link #checkPeer} PING awaits its answer. */
  private boolean checkingPeer;
  /**
   * The least silence that ends a connection whose {@link #checkPeer} PING goes unanswered while
   * it has no stream open, ms: nothing in flight is lost by a wrong verdict (the calls held for
   * the check go to a new connection), and the calls wait for it.
   */
  public static final long CHECK_MIN_SILENCE_MS = 500;
  final PathMtuController pathMtu;
  final LossDetector loss;
  final AckTracker acks;
  /** The space of the packet whose frames are being processed. */
  int rxSpace = PacketSpace.APPLICATION;
  /** The space the pending probes are for. */
  int probeSpace = PacketSpace.APPLICATION;
  final StreamSet streams;
  final StreamFrameWriter streamWriter;
  final Handshake handshake = new Handshake();
  final HandshakeCopy handshakeCopy;
  final ConnectionStats stats = new ConnectionStats();
  final FrameDispatcher dispatcher;
  final PacketBuilder builder;

  long nowNs;
  long idleTimeoutNs;
  long closeDeadlineNs = Long.MAX_VALUE;
  /**
   * The closing state's period still waits for its start: the first CONNECTION_CLOSE sent, or
   * the first timer run if none can be sent. An application closes between the driver's turns,
   * when {@link #nowNs} is the time of the last turn, which may be older than three PTOs.
   */
  boolean closePeriodUnstarted;
  int probesPending;
  boolean handshakeDonePending;
  boolean handshakeConfirmed;
  boolean handshakeDoneAcked;
  boolean peerEstablished;
  boolean retransmitQueued;
  /** The number of the first 1-RTT packet sent, or -1 before it. */
  long firstOneRttPn = -1;
  /**
   * The Destination Connection ID of the client's very first INITIAL: what the Noise prologue
   * binds (docs/udp-crypto.md §5.2) and the server's original_destination_connection_id names
   * (RFC 9000 §7.3). The same as {@link #originalDcid} unless a Retry came between.
   */
  ConnectionId handshakeDcid;
  /**
   * The Source Connection ID of the Retry (RFC 9000 §17.2.5): at the client, of the one it
   * accepted; at the server, of the one its INITIAL answered. Null without a Retry.
   */
  ConnectionId retrySourceCid;
  /** A client's Token for its INITIALs (the Retry's, or the configured one); null: none. */
  byte[] initialToken;
  /** Server: a NEW_TOKEN frame waits to be (re)sent with this token; null: none. */
  byte[] newToken;
  /**
   * A client's last NEW_TOKEN token and NEW_TICKET ticket id received: a frame sent again after a
   * spurious loss carries the same value, which is dropped (RFC 9000 §19.7: "clients are
   * responsible for discarding duplicate values").
   */
  byte[] lastTokenReceived;
  byte[] lastTicketIdReceived;
  /** Server: whether {@link #newToken} is queued. */
  boolean newTokenPending;
  /** Server: whether a token was issued on this connection (one per connection). */
  boolean newTokenIssued;
  /**
   * The path the connection sends on: its peer address's validation, 3x budget and challenge
   * (RFC 9000 §8.1, §8.2, §9.3). Swapped with {@link #fallbackPath} on a move, never replaced.
   */
  Path path = new Path();
  /**
   * While {@link #path} is being validated, the last validated path, to which a failed
   * validation returns (RFC 9000 §9.3.2); empty otherwise.
   */
  Path fallbackPath = new Path();
  /** Whether the connection has moved off its handshake's path (RFC 9000 §9.3). */
  boolean pathMoved;
  /** Tells whether two paths reach the same host (a port change only), if the driver knows. */
  private PathOracle pathOracle;
  boolean pathResponsePending;
  long pathResponseData;
  boolean peerWantsTimestamps;
  /** Whether an entry point has told the connection the time yet ({@link #observe}). */
  private boolean clockStarted;

  /**
   * Packets that failed authentication over the connection's life, across all its keys (RFC
   * 9001 §6.6); the connection closes with AEAD_LIMIT_REACHED once this exceeds the integrity
   * limit.
   */
  long authenticationFailures;
  /**
   * The integrity limit in packets, 0 for the AEAD's own (RFC 9001 §6.6: 2^52 for AES-GCM, 2^36
   * for ChaCha20-Poly1305). Tests lower it to reach the limit.
   */
  long integrityLimitOverride;

  /**
   * The server's answer to a resumption (docs/protocol.md §9.10): {@link
   * TransportParameters#EARLY_DATA_ACCEPTED}, {@code EARLY_DATA_REJECTED}, or 0 (no resumption,
   * or not answered yet).
   */
  int earlyData;
  /** The packet being processed is a 0-RTT packet (RFC 9000 §12.4: fewer frames allowed). */
  boolean rxZeroRtt;
  /** Stream bytes a server has taken in 0-RTT packets (against its early-data limit). */
  long earlyBytesReceived;
  /** The server's ticket for this connection, sent and re-sent until acknowledged; or null. */
  IssuedTicket issuedTicket;

  boolean closeToSend;
  /** Packets attributed to the connection since it entered the closing state. */
  long closingPacketsReceived;
  /** The count of {@link #closingPacketsReceived} the next CONNECTION_CLOSE answers. */
  long closingNextAnswer = 1;
  boolean closeApplication;
  TransportError closeError;
  long closeCode;
  long closeFrameType;
  byte[] closeReason = new byte[0];

  private Connection(boolean isClient, ConnectionConfig config, ConnectionListener listener,
      Random random, SendScheduler scheduler, ConnectionId localCid, ConnectionId peerCid,
      ConnectionId originalDcid, int version) {
    this.isClient = isClient;
    this.config = config;
    this.listener.set(listener);
    this.random = random;
    this.localCid = localCid;
    this.peerCid = peerCid;
    this.originalDcid = originalDcid;
    this.handshakeDcid = originalDcid;
    this.version = version;
    this.attemptedVersion = version;
    this.cc = new PathCongestion(config.congestionControl, config.maxDatagramBytes, random);
    this.pacer = new Pacer(config.maxDatagramBytes, cc.pacingRateBytesPerSecond(rtt));
    pacer.setTimerPrecisionNs(config.timerPrecisionNs);
    this.mtu = new MtuDiscovery(config.maxDatagramBytes, config.maxProbedDatagramBytes,
        MtuDiscovery.RAISE_INTERVAL_NS);
    this.pathMtu = new PathMtuController(cc, mtu, pacer);
    this.dispatcher = new FrameDispatcher(this);
    long maxAckDelayNs = Saturating.msToNs(config.maxAckDelayMs);
    for (int i = 0; i < PacketSpace.COUNT; i++) {
      spaces[i] = new PacketSpace(i, maxAckDelayNs, rtt, pathMtu, dispatcher, flight);
    }
    this.initialSpace = spaces[PacketSpace.INITIAL];
    this.appSpace = spaces[PacketSpace.APPLICATION];
    // Version 1 has no HANDSHAKE packets: its handshake is one INITIAL each way.
    spaces[PacketSpace.HANDSHAKE].discard();
    if (config.mutant != Mutant.NONE) {
      for (PacketSpace s : spaces) {
        s.loss.mutate(config.mutant == Mutant.PTO_4X, config.mutant == Mutant.NO_FAST_RETRANSMIT);
      }
      pacer.setUnpaced(config.mutant == Mutant.NO_PACING);
      spaces[PacketSpace.APPLICATION].acks.acknowledgeGaps(config.mutant == Mutant.OPTIMISTIC_ACKS);
    }
    // RFC 9000 §21.4: skipped packet numbers catch a peer that acknowledges what it never got.
    spaces[PacketSpace.APPLICATION].loss.skipPacketNumbers(random.nextLong());
    this.log = appSpace.log;
    this.loss = appSpace.loss;
    this.acks = appSpace.acks;
    this.streams = new StreamSet(isClient, config.limits, scheduler, this.listener);
    this.streamWriter = new StreamFrameWriter(streams);
    this.builder = new PacketBuilder(this);
    this.handshakeCopy = new HandshakeCopy(config.handshakeCopyDelayNs, config.firstDataCopy);
    this.idleTimeoutNs = Saturating.msToNs(config.idleTimeoutMs);
    this.idle = new IdlePolicy(Saturating.msToNs(config.keepAliveMs),
        Saturating.msToNs(config.keepAliveTimeoutMs), idleTimeoutNs, 0);
    // Only the client's datagrams can show the server a new address after a NAT rebinding.
    idle.setProbeWhileWaiting(isClient);
    path.reset(0, false);
  }

  /**
   * Every entry point that is told the time goes through here. The first one starts the
   * connection's clock: the connection does not know when it was created (a server's is built
   * before its first datagram is read), and its idle timer counts from then (RFC 9000 §10.1).
   */
  private void observe(long nowNs) {
    if (!clockStarted) {
      clockStarted = true;
      lastHeardNs = nowNs;
      idle.start(nowNs);
    }
    this.nowNs = nowNs;
  }

  /** Brings the idle policy up to date (negotiated timeout, open streams). */
  private IdlePolicy idlePolicy() {
    idle.setIdleTimeoutNs(idleTimeoutNs);
    idle.setOpenStreams(streams.size());
    return idle;
  }

  /**
   * Keeps the connection alive with pings while idle even without open streams (so that the
   * next call finds the NAT binding and the connection still there), or stops doing so.
   */
  public void setKeepConnected(boolean keep) {
    idle.setKeepConnected(keep);
  }

  /**
   * A client connection; its first {@link #pollDatagram} produces the INITIAL. Connection IDs and
   * path challenges come from the configuration's random source ({@link SecureRandom} unless the
   * simulator injected a seeded one with {@link ConnectionConfig#withDeterministicRandom}).
   */
  public static Connection client(ConnectionConfig config, ConnectionListener listener) {
    return client(config, listener, scheduler(config));
  }

  static SendScheduler scheduler(ConnectionConfig config) {
    return config.priorityScheduling ? new PriorityScheduler() : new RoundRobinScheduler();
  }

  /** A client connection with the given send scheduler. */
  public static Connection client(ConnectionConfig config, ConnectionListener listener,
      SendScheduler scheduler) {
    Random random = config.random;
    ConnectionId local = ConnectionId.random(random);
    ConnectionId initialDcid = ConnectionId.random(random);
    Connection c = new Connection(true, config, listener, random, scheduler, local, initialDcid,
        initialDcid, config.versions[0]);
    c.initialToken = config.addressToken; // RFC 9000 §8.1.3: a NEW_TOKEN token, if any
    c.keys.startClient();
    c.initialSpace.loss.setArmWithoutInFlight(true); // RFC 9002 §6.2.2.1
    c.path.validate(); // RFC 9000 §8.1: the server's address needs no validation by the client
    return c;
  }

  /**
   * A server connection for a client's INITIAL. The caller (the endpoint) has checked that the
   * datagram parses as an INITIAL of a version in {@code config}; it then passes the same
   * datagram to {@link #onDatagram}.
   *
   * @param clientDcid the INITIAL's destination connection ID
   * @param clientScid the INITIAL's source connection ID
   */
  public static Connection server(ConnectionConfig config, ConnectionListener listener,
      ConnectionId clientDcid, ConnectionId clientScid, int version) {
    return server(config, listener, clientDcid, clientScid, version, scheduler(config));
  }

  /** A server connection with the given send scheduler. */
  public static Connection server(ConnectionConfig config, ConnectionListener listener,
      ConnectionId clientDcid, ConnectionId clientScid, int version, SendScheduler scheduler) {
    Random random = config.random;
    ConnectionId local = ConnectionId.forServer(random, config.configRotation, config.serverId);
    return server(config, listener, clientDcid, clientScid, version, scheduler, null);
  }

  /**
   * A server connection; {@code initialKeys} are the Initial keys the endpoint derived to open
   * the client's first INITIAL (RFC 9001 §5.2), or null to derive them here.
   */
  static Connection server(ConnectionConfig config, ConnectionListener listener,
      ConnectionId clientDcid, ConnectionId clientScid, int version, SendScheduler scheduler,
      EpochPacketKeys initialKeys) {
    return server(config, listener, clientDcid, clientScid, version, scheduler, initialKeys,
        clientDcid, null);
  }

  /**
   * A server connection for a client's INITIAL, which may answer this server's Retry: then
   * {@code handshakeDcid} is the client's first Destination Connection ID, from the Retry token,
   * and {@code retryScid} the Retry's Source Connection ID (the INITIAL's destination); without
   * a Retry, {@code clientDcid} and null.
   */
  static Connection server(ConnectionConfig config, ConnectionListener listener,
      ConnectionId clientDcid, ConnectionId clientScid, int version, SendScheduler scheduler,
      EpochPacketKeys initialKeys, ConnectionId handshakeDcid, ConnectionId retryScid) {
    Random random = config.random;
    ConnectionId local = ConnectionId.forServer(random, config.configRotation, config.serverId);
    Connection c = new Connection(false, config, listener, random, scheduler, local, clientScid,
        clientDcid, version);
    c.handshakeDcid = handshakeDcid;
    c.retrySourceCid = retryScid;
    c.peerCidLearned = true;
    c.keys.startServer(initialKeys);
    return c;
  }


  TransportParameters localParameters(int type) {
    TransportParameters p = new TransportParameters();
    p.messageType = type;
    p.initialSourceConnectionId = localCid;
    p.maxIdleTimeoutMs = config.idleTimeoutMs;
    p.maxUdpPayloadSize = config.maxProbedDatagramBytes;
    p.initialMaxData = config.limits.connectionWindowBytes;
    p.initialMaxStreamData = config.limits.streamWindowBytes;
    p.initialMaxStreams = config.limits.maxStreams;
    p.maxAckDelayMs = config.maxAckDelayMs;
    p.rpcVersions = config.rpcVersions.clone();
    p.wantsReceiveTimestamps = config.wantReceiveTimestamps;
    p.chosenVersion = version;
    p.attemptedVersion = isClient ? attemptedVersion : version;
    if (!isClient) {
      // RFC 9000 §7.3: the client checks what its first INITIAL and the Retry said.
      p.originalDestinationConnectionId = handshakeDcid;
      p.retrySourceConnectionId = retrySourceCid;
    }
    if (!isClient && Versions.isEncrypted(version)) {
      // Only where the parameters travel encrypted: the token is the connection's secret.
      p.statelessResetToken = localResetToken;
      p.resetProofKey = localResetProofKey;
    }
    if (isClient && Versions.isEncrypted(version)) {
      SessionTicket t = HandshakeCrypto.usableTicket(config);
      if (t != null) {
        p.ticketAgeMillis = t.ageMillis(config.wallClock.getAsLong()); // RFC 8446 §4.2.11
      }
    }
    if (!isClient) {
      p.earlyData = earlyData;
    }
    return p;
  }

  // ---- datagrams in -------------------------------------------------------------------------

  /** Processes a datagram from the current path (see {@link #onDatagram(ByteBuffer, long, long)}). */
  public void onDatagram(ByteBuffer datagram, long nowNs) {
    onDatagram(datagram, nowNs, path.id);
  }

  /**
   * Processes a received datagram (borrowed: not kept after return; its position is advanced to
   * its limit). Malformed or corrupt packets are dropped and counted, never thrown.
   *
   * @param pathId an opaque number the driver gives each remote address; a new highest-numbered
   *     packet from a new path moves the connection to it (docs/protocol.md §8)
   */
  public void onDatagram(ByteBuffer datagram, long nowNs, long pathId) {
    observe(nowNs);
    if (state == ConnectionState.CLOSED) {
      ((Buffer) datagram).position(datagram.limit());
      return;
    }
    stats.bytesReceived += datagram.remaining();
    boolean blocked = !path.validated && !builder.canSendAnything();
    PacketReceiver.receive(this, datagram, pathId);
    if (blocked && builder.canSendAnything() && recoveryTimerNs() <= nowNs) {
      // RFC 9002 §A.6 (OnDatagramReceived): a datagram that unblocks an endpoint at the
      // anti-amplification limit of its path (RFC 9000 §8.1, §9.3) re-arms its probe timeout,
      // and one that would have expired while the limit applied runs now.
      onLossDetectionTimeout(nowNs);
    }
    streams.deliverNotifications();
  }

  // ---- datagrams out ------------------------------------------------------------------------

  /**
   * Writes the next datagram to send into {@code out} at its position (at most
   * {@code min(out.remaining(), maxDatagramBytes)} bytes), advancing the position.
   *
   * @return the datagram's size, or 0 if nothing is to be sent now
   */
  public int pollDatagram(ByteBuffer out, long nowNs) {
    observe(nowNs);
    return builder.poll(out);
  }

  /** The next time {@link #onTimeout} should run, {@code Long.MAX_VALUE} if none. */
  public long nextTimeoutNs() {
    switch (state) {
      case CLOSED:
        return Long.MAX_VALUE;
      case CLOSING:
      case DRAINING:
        return closeDeadlineNs;
      default:
        break;
    }
    long t = Math.min(recoveryTimerNs(), keys.nextTimeoutNs());
    // RFC 9000 §10.1 idle timeout and the keep-alive ping.
    t = Math.min(t, idlePolicy().nextTimeoutNs(rtt.ptoNs(0)));
    t = Math.min(t, peerDeadlineNs);
    t = Math.min(t, path.validationDeadlineNs);
    t = Math.min(t, silenceCheckNs());
    t = Math.min(t, builder.handshakeCopyDueNs());
    if (builder.canSendAnything()) {
      for (PacketSpace s : spaces) {
        if (builder.canSendIn(s)) {
          t = Math.min(t, s.acks.ackDeadlineNs());
        }
      }
      long pace = builder.nextPacedSendNs();
      t = Math.min(t, pace);
    }
    return t;
  }

  /** Runs the timers due at {@code nowNs}: loss detection, probes, idle timeout, closing. */
  public void onTimeout(long nowNs) {
    observe(nowNs);
    if (state == ConnectionState.CLOSED) {
      return;
    }
    if (state == ConnectionState.CLOSING || state == ConnectionState.DRAINING) {
      if (closePeriodUnstarted) {
        startClosePeriod(); // no close could be sent yet: the period runs from now
      } else if (nowNs >= closeDeadlineNs) {
        state = ConnectionState.CLOSED;
      }
      return;
    }
    keys.onTimeout(nowNs); // RFC 9001 §6.1: the previous 1-RTT read keys' time is up
    if (nowNs - path.validationDeadlineNs >= 0) {
      onPathValidationTimeout();
    }
    IdlePolicy.Action idleAction = idlePolicy().onTimeout(nowNs, rtt.ptoNs(0));
    if (idleAction == IdlePolicy.Action.SEND_WAITING_PING
        && state == ConnectionState.ESTABLISHED) {
      pingPending = true;
      stats.waitingPingsSent++;
    }
    if (idleAction == IdlePolicy.Action.SEND_PING && state == ConnectionState.ESTABLISHED) {
      pingPending = true;
      stats.keepAlivePingsSent++;
      idle.onKeepAlivePingSent(nowNs, rtt.ptoNs(0));
    }
    if (idleAction == IdlePolicy.Action.CLOSE) {
      // RFC 9000 §10.1: an idle connection is closed silently.
      state = ConnectionState.CLOSED;
      closeError = TransportError.IDLE_TIMEOUT;
      listener.onClosed(this, TransportError.IDLE_TIMEOUT, TransportError.IDLE_TIMEOUT.code(),
          "idle timeout", false);
      return;
    }
    if (idleAction == IdlePolicy.Action.KEEP_ALIVE_TIMEOUT) {
      // Nothing came back for the keep-alive PING: the peer, or the path to it, is gone. As for
      // the idle timeout, nothing is sent (it would not arrive).
      state = ConnectionState.CLOSED;
      closeError = TransportError.KEEP_ALIVE_TIMEOUT;
      listener.onClosed(this, TransportError.KEEP_ALIVE_TIMEOUT,
          TransportError.KEEP_ALIVE_TIMEOUT.code(), "keep-alive PING unanswered for "
              + config.keepAliveTimeoutMs + " ms", false);
      return;
    }
    if (!peerUnresponsive(nowNs)) {
      onLossDetectionTimeout(nowNs);
      peerUnresponsive(nowNs);
    }
  }

  /**
   * Sends a PING (ack-eliciting, RFC 9000 §19.2) to learn whether the peer is still there: an
   * acknowledgement shows it is ({@link #lastHeardNs()} moves); with none, the probe timeouts that
   * follow find the peer dead ({@code PEER_UNRESPONSIVE}). Established connections only.
   */
  public void checkPeer() {
    if (state == ConnectionState.ESTABLISHED) {
      pingPending = true;
      checkingPeer = true;
      stats.quietCheckPingsSent++;
    }
  }

  /**
   * The client's own address changed (its driver's socket could no longer send from the old one
   * and now sends from a new one): the client migrates, RFC 9000 §9.2, by simply sending from the
   * new address. A PING goes out at once, so the server sees the new address (and follows it,
   * validating it, §9.3) without waiting for the next packet the client would have sent anyway,
   * and the probe backoff restarts: what went unanswered was sent from the address that is gone.
   * The connection ID stays the same (the core has one per direction; RFC 9000 §9.5's fresh ID
   * per local address needs NEW_CONNECTION_ID, not implemented), so an observer can link the two
   * addresses, as with a NAT rebinding. Client only; nothing happens before the handshake is
   * done (the handshake's own retransmissions carry on from the new address).
   *
   * @param nowNs the time of the change
   */
  public void onLocalAddressChanged(long nowNs) {
    if (!isClient || state == ConnectionState.CLOSED) {
      return;
    }
    stats.localAddressChanges++;
    if (state == ConnectionState.ESTABLISHED) {
      pingPending = true;
      flight.resetProbeBackoff();
    }
  }

  /** A packet from the peer was processed: it is there. */
  void onPeerHeard(long nowNs) {
    lastHeardNs = nowNs;
    firstUnansweredNs = 0;
    peerDeadlineNs = Long.MAX_VALUE;
    checkingPeer = false;
  }

  /** An ack-eliciting packet left: the first since the peer was last heard starts the wait. */
  void onAckElicitingSent(long nowNs) {
    if (firstUnansweredNs == 0) {
      firstUnansweredNs = nowNs;
    }
  }

  /**
   * When the peer has been silent, since the first ack-eliciting packet it left unanswered, for as
   * long as {@link ConnectionConfig#deadAfterProbeTimeouts} probe timeouts take back to back, each
   * doubling the last (RFC 9002 §6.2.1): PTO × (2^n − 1). The probe timer alone cannot count them
   * when the application keeps sending: each ack-eliciting packet re-arms it from its own send
   * time (RFC 9002 §6.2.1), so with a message every 100 ms and a backed-off PTO longer than that
   * it never expires, and a path gone silent under a busy call was found only by the idle timeout.
   * Long.MAX_VALUE when nothing is unanswered, the probe timer is not armed, or the rule is off or
   * not yet in force.
   */
  private long silenceCheckNs() {
    if (firstUnansweredNs == 0 || peerDeadlineNs != Long.MAX_VALUE || state != ConnectionState.ESTABLISHED
        || config.deadAfterProbeTimeouts <= 0 || recoveryTimerNs() == Long.MAX_VALUE) {
      // Only while the connection waits on its probe timer: one that may not send (the
      // amplification limit, RFC 9000 §8.1) is waiting on its peer, not probing it.
      return Long.MAX_VALUE;
    }
    long pto = rtt.ptoNs(config.maxAckDelayMs * 1_000_000L);
    int n = Math.min(config.deadAfterProbeTimeouts, 20);
    return Saturating.add(firstUnansweredNs, Saturating.mul(pto, (1L << n) - 1));
  }

  /** When the last packet from the peer was processed ({@link System#nanoTime()} base). */
  public long lastHeardNs() {
    return lastHeardNs;
  }

  /**
   * Dead-peer detection: once {@link ConnectionConfig#deadAfterProbeTimeouts} consecutive probe
   * timeouts (RFC 9002 §6.2.1; the count is reset only by an acknowledgement) have expired with
   * nothing received, and at least {@link ConnectionConfig#minDeadSilenceMs} has passed since the
   * first ack-eliciting packet that went unanswered, the connection is discarded silently, as by the idle timeout
   * (RFC 9000 §10.1): whatever it sent would not be answered. A peer that crashed or restarted
   * without its state stays silent, and the idle timeout would take 30 s to say so.
   *
   * @return true if the connection has just been closed
   */
  private boolean peerUnresponsive(long nowNs) {
    if (state != ConnectionState.ESTABLISHED || config.deadAfterProbeTimeouts <= 0) {
      return false;
    }
    if (peerDeadlineNs == Long.MAX_VALUE) {
      if (loss.ptoCount() < config.deadAfterProbeTimeouts && nowNs - silenceCheckNs() < 0) {
        return false;
      }
      long since = firstUnansweredNs != 0 ? firstUnansweredNs : lastHeardNs;
      long floorMs = checkingPeer && streams.size() == 0
          ? Math.min(CHECK_MIN_SILENCE_MS, config.minDeadSilenceMs) : config.minDeadSilenceMs;
      peerDeadlineNs = Math.max(nowNs, Saturating.add(since, Saturating.msToNs(floorMs)));
    }
    if (nowNs - peerDeadlineNs < 0) {
      return false;
    }
    state = ConnectionState.CLOSED;
    closeError = TransportError.PEER_UNRESPONSIVE;
    stats.peerUnresponsiveCloses++;
    long silentMs = (nowNs - (firstUnansweredNs != 0 ? firstUnansweredNs : lastHeardNs)) / 1_000_000L;
    listener.onClosed(this, TransportError.PEER_UNRESPONSIVE, TransportError.PEER_UNRESPONSIVE.code(),
        "the peer stopped answering (no answer for " + silentMs + " ms, " + Math.max(loss.ptoCount(),
            config.deadAfterProbeTimeouts) + " probe timeouts of "
            + Math.max(1, rtt.ptoNs(config.maxAckDelayMs * 1_000_000L) / 1_000_000L) + " ms and more)", false);
    return true;
  }

  /** RFC 9002 §A.9 OnLossDetectionTimeout: the due space's loss time or probe timeout. */
  private void onLossDetectionTimeout(long nowNs) {
    int space = timerSpace();
    if (space >= 0 && nowNs >= spaces[space].loss.timerNs()) {
      int probes = spaces[space].loss.onTimeout(nowNs);
      if (probes > 0) {
        stats.ptoCount++;
        probesPending = probes;
        probeSpace = space;
        int next = streamWriter.nextUrgency();
        if (space == PacketSpace.APPLICATION
            && (next < 0 || next >= PacketBuilder.URGENT_BELOW_URGENCY)) {
          // The probes carry urgent data still in flight before any less urgent new data.
          loss.repeatOldestUrgent(probes);
        }
        mtu.onProbeTimeout(nowNs, loss.ptoCount());
        pathMtu.checkSize();
      }
    }
  }

  /**
   * Three probe timeouts: how long the closing and draining states last (RFC 9000 §10.2) and how
   * long the previous 1-RTT read keys are kept after a key update (RFC 9001 §6.1).
   */
  long threePtoNs() {
    return Saturating.mul(3, rtt.ptoNs(0));
  }

  /**
   * The integrity limit that applies when {@code keys} fail to open a packet (RFC 9001 §6.6: that
   * of the AEAD in use), or {@link #integrityLimitOverride} if set; {@code Long.MAX_VALUE} for a
   * checksum, whose failures are not counted.
   */
  long integrityLimit(PacketProtection keys) {
    long limit = keys.integrityLimitPackets();
    return limit == Long.MAX_VALUE || integrityLimitOverride <= 0 ? limit : integrityLimitOverride;
  }

  /**
   * The space whose loss-detection timer is due first (RFC 9002 §A.8 GetLossTimeAndSpace, then
   * GetPtoTimeAndSpace): the earliest loss time of any space goes before every probe timeout;
   * -1 if no timer is armed.
   */
  int timerSpace() {
    int best = -1;
    long bestNs = Long.MAX_VALUE;
    for (PacketSpace s : spaces) {
      long lossNs = s.discarded() ? 0 : s.loss.lossTimeNs();
      if (lossNs != 0 && lossNs < bestNs) {
        best = s.index;
        bestNs = lossNs;
      }
    }
    if (best >= 0) {
      return best;
    }
    // RFC 9002 §6.2.1 and §A.8 GetPtoTimeAndSpace: no probe timeout for application data
    // before the handshake is confirmed. With the 1-RTT packets in the role of HANDSHAKE packets
    // (docs/protocol.md §4), the application space takes over once the Initial space is
    // discarded; while it is live, the peer cannot read a 1-RTT probe before it has the Initial
    // space's handshake message, so a server's probe there would be wasted and back the timer
    // off past the Initial probe the peer needs.
    boolean skipApplication = !handshakeConfirmed && !initialSpace.discarded();
    for (PacketSpace s : spaces) {
      long ptoNs = s.discarded() || (skipApplication && s.index == PacketSpace.APPLICATION)
          ? Long.MAX_VALUE : s.loss.timerNs();
      if (ptoNs < bestNs) {
        best = s.index;
        bestNs = ptoNs;
      }
    }
    return best;
  }

  /** When the loss-detection timer of {@link #timerSpace()} fires, or {@code Long.MAX_VALUE}. */
  long recoveryTimerNs() {
    int s = timerSpace();
    if (s < 0) {
      return Long.MAX_VALUE;
    }
    LossDetector loss = spaces[s].loss;
    if (loss.lossTimeNs() == 0 && !path.validated && !builder.canSendAnything()) {
      // RFC 9002 §6.2.2.1: an endpoint at the anti-amplification limit of its path arms no probe
      // timeout; it could send no probe, and the timer would stay in the past. A datagram from
      // the peer on that path raises the budget and re-arms it; so does its validation.
      return Long.MAX_VALUE;
    }
    return loss.timerNs();
  }

  /**
   * Discards the Initial space and its keys (RFC 9001 §4.9.1, with version 1's 1-RTT packets in
   * the role of HANDSHAKE packets): the client once it has the server's handshake message and
   * sends 1-RTT, the server when it first receives a 1-RTT packet. Either shows that the peer
   * has our handshake message.
   */
  void discardInitialSpace() {
    if (initialSpace.discarded()) {
      return;
    }
    handshake.onPeerHasIt();
    initialSpace.discard();
    if (probeSpace == PacketSpace.INITIAL) {
      probeSpace = PacketSpace.APPLICATION;
    }
    if (isClient && !handshakeConfirmed) {
      loss.setArmWithoutInFlight(true); // RFC 9002 §6.2.2.1, until HANDSHAKE_DONE
    }
  }

  // ---- streams (the transport glue's API) --------------------------------------------------

  /** Opens a stream, or returns null if the handshake is not complete or the peer's limit is hit. */
  public Stream openStream() {
    if (state != ConnectionState.ESTABLISHED && !canSendEarlyData()) {
      return null;
    }
    return streams.open();
  }

  /**
   * Whether streams opened now go in 0-RTT packets: a client resuming with a ticket that allows
   * early data, before the server's answer (docs/protocol.md §9.10). Their data is replayable
   * (RFC 9001 §9.2): open them only for requests that may be repeated (idempotent calls).
   */
  public boolean canSendEarlyData() {
    return state == ConnectionState.HANDSHAKING && keys.canSendZeroRtt();
  }

  /** Whether this connection resumed with a ticket (IKpsk2), once the handshake has read it. */
  public boolean resumed() {
    return earlyData != 0;
  }

  /**
   * Whether the server accepted this connection's early data: true once a client has read the
   * acceptance (or a server sent it); false before, without resumption, or on rejection.
   */
  public boolean earlyDataAccepted() {
    return earlyData == TransportParameters.EARLY_DATA_ACCEPTED;
  }

  /**
   * The bytes sent in ack-eliciting or padded packets that are neither acknowledged nor declared
   * lost, in every packet number space (RFC 9002 §2, "bytes in flight").
   */
  public long bytesInFlight() {
    return flight.bytesInFlight();
  }

  /**
   * Reports this connection's packets, losses, recovery state and path changes to {@code log}
   * from now on (a driver's qlog file, docs/protocol.md §10.9); null for none. On the
   * connection's thread.
   */
  public void setEventLog(EventLog log) {
    flight.setEventLog(log);
  }

  /** The original Destination Connection ID of the handshake, which names the connection's log. */
  public ConnectionId originalDestinationConnectionId() {
    return originalDcid;
  }

  /** The open stream with {@code id}, or null. */
  public Stream stream(long id) {
    return streams.get(id);
  }

  /** Writes bytes to a stream's send buffer; returns how many were taken (borrowing {@code src}). */
  public int write(Stream stream, ByteBuffer src) {
    return streams.write(stream, src);
  }

  /** Ends a stream's sending half. */
  public void finish(Stream stream) {
    streams.finish(stream);
  }

  /** Resets a stream's sending half (its unsent data is dropped at once; the peer is told). */
  public void resetStream(Stream stream, long applicationErrorCode) {
    streams.reset(stream, applicationErrorCode);
  }

  /** Asks the peer to stop sending on a stream. */
  public void stopSending(Stream stream, long applicationErrorCode) {
    streams.stopSending(stream, applicationErrorCode);
  }

  /** Reads in-order bytes of a stream into {@code dst}; returns how many. */
  public int read(Stream stream, ByteBuffer dst) {
    return streams.read(stream, dst);
  }

  // ---- closing -------------------------------------------------------------------------------

  /** Closes the connection with an application error code (APPLICATION_CLOSE). */
  public void close(long applicationErrorCode, String reason) {
    startClosing(TransportError.APPLICATION_ERROR, applicationErrorCode, 0, reason, true);
  }

  void closeWithError(TransportError error, long frameType, String reason) {
    startClosing(error, error.code(), frameType, reason, false);
  }

  /**
   * Closes after a failed handshake with the error's CRYPTO_ERROR code (RFC 9000 §20.1, RFC 9001
   * §4.8: 0x0100 plus the nearest TLS alert).
   */
  void closeWithHandshakeError(HandshakeException e) {
    startClosing(TransportError.CRYPTO_ERROR, e.error().wireCode(), FrameType.CRYPTO,
        e.getMessage(), false);
  }

  private void startClosing(TransportError error, long code, long frameType, String reason,
      boolean application) {
    if (state == ConnectionState.CLOSING || state == ConnectionState.DRAINING
        || state == ConnectionState.CLOSED) {
      return;
    }
    closeError = error;
    closeCode = code;
    closeFrameType = frameType;
    closeApplication = application;
    closeReason = reason == null ? new byte[0] : reason.getBytes(StandardCharsets.UTF_8);
    closeToSend = true;
    closingPacketsReceived = 0;
    closingNextAnswer = 1;
    state = ConnectionState.CLOSING;
    // RFC 9000 §10.2: the closing state lasts three PTOs, counted from the CONNECTION_CLOSE sent
    // (or a timer's run), not from nowNs: a close the application asks for between turns would
    // otherwise find its period over, and the connection CLOSED, before its close was ever sent.
    closeDeadlineNs = Saturating.add(nowNs, threePtoNs());
    closePeriodUnstarted = true;
    listener.onClosed(this, error, code, reason == null ? "" : reason, false);
  }

  /** The closing state's three PTOs begin now (RFC 9000 §10.2). */
  void startClosePeriod() {
    closePeriodUnstarted = false;
    closeDeadlineNs = Saturating.add(nowNs, threePtoNs());
  }

  /**
   * A packet attributed to the connection arrived in the closing state. RFC 9000 §10.2.1: the
   * answer is the CONNECTION_CLOSE again, at a limited rate: the 1st, 2nd, 4th, 8th, ... such
   * packet is answered, so a flood of n packets draws about log2(n) answers. Each answer also
   * stays within the anti-amplification limit (RFC 9000 §8.1, {@link PacketBuilder}).
   */
  void onPacketWhileClosing() {
    closingPacketsReceived++;
    if (closingPacketsReceived >= closingNextAnswer) {
      closeToSend = true;
      closingNextAnswer = Saturating.mul(2, closingNextAnswer);
    }
  }

  /**
   * A datagram that did not open as a packet of this connection ended with the server's stateless
   * reset token (RFC 9000 §10.3.1): the server no longer has the connection. The connection
   * drains: it sends nothing more and tells the listener at once.
   */
  void onStatelessReset(long provenUptimeMs) {
    statelessResetUptimeMs = provenUptimeMs;
    stats.statelessResetsReceived++;
    onPeerClose(TransportError.STATELESS_RESET, TransportError.STATELESS_RESET.code(),
        "the server sent a stateless reset: it no longer knows the connection (it restarted or lost its state)");
  }

  void onPeerClose(TransportError error, long code, String reason) {
    if (state == ConnectionState.CLOSING || state == ConnectionState.DRAINING
        || state == ConnectionState.CLOSED) {
      return;
    }
    closeError = error;
    closeCode = code;
    state = ConnectionState.DRAINING;
    closeDeadlineNs = Saturating.add(nowNs, threePtoNs()); // RFC 9000 §10.2.2
    listener.onClosed(this, error, code, reason, true);
  }

  /**
   * Sets the listener (e.g. once the glue has wrapped a server connection the endpoint created);
   * null stops notifications.
   */
  public void setListener(ConnectionListener l) {
    listener.set(l);
  }

  // ---- inspection ----------------------------------------------------------------------------

  /**
   * The server's uptime, in ms, that the stateless reset which ended this connection proved
   * ({@link StatelessReset}); -1 if none did.
   */
  public long statelessResetUptimeMs() {
    return statelessResetUptimeMs;
  }

  /** The state. */
  public ConnectionState state() {
    return state;
  }

  /** The negotiated wire version. */
  public int version() {
    return version;
  }

  /** The Tern RPC protocol versions the peer stated, or an empty array before the handshake. */
  public long[] peerRpcVersions() {
    TransportParameters p = handshake.peer();
    return p == null ? new long[0] : p.rpcVersions.clone();
  }

  /**
   * The static X25519 public key the peer proved in the handshake (docs/udp-crypto.md §5.2): on
   * a server the client's identity (a per-connection key if the client is anonymous), on a client
   * the pinned server key it encrypted to. Null before the peer's handshake message has been read
   * and in the plaintext version 1. A copy.
   */
  public byte[] peerStaticKey() {
    HandshakeCrypto crypto = keys.crypto;
    return crypto == null ? null : crypto.peerStaticKey();
  }

  /**
   * Whether the peer's address on the current path is validated (RFC 9000 §8.1): a client's
   * always; a server's once a token, or a packet to the connection ID it issued, proved it; after
   * a change of path (RFC 9000 §9.3), once a PATH_RESPONSE echoed the new path's challenge (§8.2).
   * Until then this end sends on the path at most three times what it received on it.
   */
  public boolean addressValidated() {
    return path.validated;
  }

  /** Whether a Retry came between the client's first INITIAL and this connection. */
  public boolean retried() {
    return retrySourceCid != null;
  }

  /** The connection ID this side issued (the peer's destination ID). */
  public ConnectionId localConnectionId() {
    return localCid;
  }

  /** The path the connection currently sends on. */
  public long currentPathId() {
    return path.id;
  }

  /**
   * While the current path is being validated, the last validated path, to which the connection
   * returns if the validation fails (RFC 9000 §9.3.2); a driver keeps its address until then.
   *
   * @return its path id, or -1 when there is none (the current path is validated)
   */
  public long fallbackPathId() {
    return fallbackPath.live ? fallbackPath.id : -1;
  }

  /** The counters. */
  public ConnectionStats stats() {
    long lost = 0;
    long late = 0;
    for (PacketSpace s : spaces) {
      lost += s.loss.packetsLost();
      late += s.loss.lossesDeclaredLate();
    }
    stats.packetsLost = lost;
    stats.lossesDeclaredLate = late;
    return stats;
  }

  /** The RTT estimator. */
  public CongestionController.RttView rtt() {
    return rtt;
  }

  /** The datagram size in use now (PMTU discovery moves it), bytes of UDP payload. */
  public int maxDatagramBytes() {
    return mtu.maxDatagramSize();
  }

  /** PMTU discovery's state, for reports and tests. */
  public MtuDiscovery mtuDiscovery() {
    return mtu;
  }

  /** The congestion controller in force (a fresh one after each validated path change). */
  public CongestionController congestionController() {
    return cc.current();
  }

  /** The name of the crypto provider the connection runs on ({@code jdk}, {@code bc}). */
  public String cryptoProviderName() {
    return config.cryptoProvider().name();
  }

  /**
   * An authenticated datagram of {@code bytes} came from path {@code pathId}: it raises that
   * path's anti-amplification budget if it is not validated (RFC 9000 §8.1, §9.3). Datagrams from
   * a path the connection neither sends on nor would return to raise nothing: nothing is sent
   * there.
   */
  void onAuthenticatedDatagram(long pathId, int bytes) {
    if (path.id == pathId) {
      path.onReceived(bytes);
    } else if (fallbackPath.live && fallbackPath.id == pathId) {
      fallbackPath.onReceived(bytes);
    }
  }

  /**
   * RFC 9000 §9.3: a packet with the highest packet number yet, authenticated, came from
   * {@code pathId}, which is not the current path: the connection sends there from now on, at
   * most three times what it receives there until the address is validated (§9.3, §8.2.1), and
   * validates it with a PATH_CHALLENGE in the background. A return to the last validated path
   * needs no new validation and abandons the one in progress (§9.3.3: a spoofed or replayed
   * packet that moved the connection is undone by the peer's next packet from its real address).
   */
  void onPeerAddressChanged(long pathId, long nowNs) {
    stats.pathChanges++;
    pathMoved = true;
    // What went unanswered went to the address the peer left: probe the new one afresh.
    flight.resetProbeBackoff();
    Path previous = path;
    if (fallbackPath.live && fallbackPath.id == pathId) {
      path = fallbackPath;
      fallbackPath = previous;
      fallbackPath.clear();
      flight.eventLog().pathChanged(nowNs, pathId, true);
      return;
    }
    if (previous.validated) {
      // The path left becomes the one to return to; an unvalidated one is abandoned, and the
      // last validated path stays the fallback.
      path = fallbackPath;
      fallbackPath = previous;
    }
    path.reset(pathId, false);
    path.challengeData = random.nextLong();
    path.challengePending = true;
    // RFC 9000 §8.2.4: abandoned after three times the larger of the current probe timeout and
    // that of a new path (kInitialRtt, RFC 9002 §6.2.2).
    long pto = Math.max(rtt.ptoNs(0), INITIAL_PTO_NS);
    path.validationDeadlineNs = Saturating.add(nowNs, Saturating.mul(3, pto));
    flight.eventLog().pathChanged(nowNs, pathId, false);
  }

  /** RFC 9002 §6.2.2: the probe timeout of a path with no RTT sample, kInitialRtt × 3. */
  static final long INITIAL_PTO_NS = 3 * RttEstimator.INITIAL_RTT_NS;

  /**
   * RFC 9000 §8.2.4, §9.3.2: the current path's validation has run out of time. The connection
   * returns to the last validated path, with the state it had there; without one, it stays on the
   * path (still within its budget) and no longer waits for the answer.
   */
  private void onPathValidationTimeout() {
    stats.pathValidationsFailed++;
    if (!fallbackPath.live) {
      path.challengeOutstanding = false;
      path.challengePending = false;
      path.validationDeadlineNs = Long.MAX_VALUE;
      return;
    }
    Path failed = path;
    path = fallbackPath;
    fallbackPath = failed;
    fallbackPath.clear();
    flight.resetProbeBackoff();
  }

  /**
   * The peer proved it holds its new address (PATH_RESPONSE, RFC 9000 §8.2.3): the path's 3x
   * budget ends, and the RTT estimate and the congestion controller restart from their initial
   * values for the new path (RFC 9000 §9.4), unless the driver's {@link PathOracle} says only
   * the port changed (a NAT rebinding, after which §9.4 allows keeping both). Without an oracle
   * the core sees paths only as numbers and resets on every change: the conservative reading.
   */
  void onPathValidated() {
    stats.pathsValidated++;
    path.validate();
    flight.eventLog().pathChanged(nowNs, path.id, true);
    boolean sameHost = fallbackPath.live && pathOracle != null
        && pathOracle.sameHost(fallbackPath.id, path.id);
    fallbackPath.clear();
    if (sameHost) {
      return; // only the port changed (a NAT rebinding): the path's figures still hold (§9.4)
    }
    stats.pathResets++;
    rtt.reset();
    cc.onNewPath(flight.nextSequence());
  }

  /**
   * What a driver knows of its paths: whether two path ids name the same remote host, differing
   * at most in the port.
   */
  @FunctionalInterface
  public interface PathOracle {
    /** Whether paths {@code a} and {@code b} reach the same host (a port change only). */
    boolean sameHost(long a, long b);
  }

  /**
   * Lets the connection tell a change of port alone (a NAT rebinding, after which RFC 9000 §9.4
   * keeps the RTT estimate and the congestion controller) from a change of host (which resets
   * both). Without an oracle every validated change of path resets them.
   */
  public void setPathOracle(PathOracle oracle) {
    this.pathOracle = oracle;
  }

  /**
   * Sets who hears of the ack-eliciting packets this connection's loss detection declares lost
   * (RFC 9002 §6.1) and so sends again: a driver counting retransmissions. The count is also in
   * {@link ConnectionStats#packetsLost}. Null: nobody (the default).
   */
  public void setLossListener(LossListener listener) {
    flight.setLossListener(listener);
  }

  /**
   * The wire code of the close (the transport error's, a CRYPTO_ERROR's 0x0100 + alert, or the
   * application's), once closing; 0 while open.
   */
  public long closeCode() {
    return closeCode;
  }

  /** Why the connection closed (null while open). */
  public TransportError closeError() {
    return closeError;
  }

  /**
   * Whether no stream is left: each one's data, and its end or reset, was acknowledged and what
   * came on it was read, so no call's bytes are in flight either way. Packets still awaiting
   * acknowledgement then carry none (PINGs, PMTU probes, flow-control updates, and the probes
   * that repeat them), and their loss could not have cost a call anything.
   */
  public boolean streamsSettled() {
    return streams.isIdle();
  }

  /**
   * Whether nothing is outstanding: no stream, nothing queued, no packet awaiting acknowledgement
   * (used by tests to prove no state leaks).
   */
  public boolean isQuiescent() {
    return streams.isIdle() && ackElicitingInFlight() == 0 && !streamWriter.hasControlFrames()
        && !handshake.pending() && !handshakeDonePending && !newTokenPending;
  }

  private int ackElicitingInFlight() {
    int n = 0;
    for (PacketSpace s : spaces) {
      n += s.loss.ackElicitingInFlight();
    }
    return n;
  }

  /** Live streams. */
  public int streamCount() {
    return streams.size();
  }

  @Override
  public String toString() {
    return (isClient ? "client" : "server") + "[" + localCid + " " + state + "]";
  }
}
