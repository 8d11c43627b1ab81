package dev.tern.transport.udp.fuzz;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.PeerKeys;
import dev.tern.transport.udp.connection.ServerDemux;
import dev.tern.transport.udp.connection.TestKeys;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.stream.Stream;
import dev.tern.transport.udp.stream.StreamLimits;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A server endpoint driven the way a socket driver drives it (ServerDemux.onDatagram, then
 * pollDatagram until it returns 0, then the timers), on a virtual clock, checking after every step
 * the invariants an endpoint facing hostile datagrams must keep:
 *
 * <ul>
 *   <li>nothing is thrown: the core reports protocol violations by closing the connection with a
 *       {@code TransportError}, so any exception escaping it is a bug;
 *   <li>no timer in the past: {@code nextTimeoutNs()} is {@code >= now} (or {@code Long.MAX_VALUE},
 *       no timer) once the due work is done, and running due timers settles;
 *   <li>bounded state: connections within the endpoint's limit, streams within the advertised
 *       limit, bytes held for the application within the advertised flow-control windows, and a
 *       bounded burst of datagrams per input.
 * </ul>
 *
 * One instance per fuzz input: the random source is seeded, so runs are reproducible.
 */
final class ServerHarness {
  /** The endpoint's connection limit. */
  static final int MAX_CONNECTIONS = 4;
  /** Windows and limits deliberately small and not powers of two, so fuzzing reaches them. */
  static final StreamLimits LIMITS = new StreamLimits(100_000, 30_000, 5, 40_000);
  /** More datagrams than this from one poll loop is a send loop that does not end. */
  static final int MAX_BURST_DATAGRAMS = 256;
  /** Due-timer rounds after which the timers must have settled. */
  static final int MAX_TIMER_ROUNDS = 16;

  /** The largest datagram PMTU discovery may probe with (RFC 8899), bytes of UDP payload. */
  static final int MAX_PROBED_DATAGRAM = 1472;

  private final ConnectionConfig config;
  /** The keys a client holds, to protect forged packets (Wire.reseal). */
  private final PacketProtection wireInitialKeys;
  private final Map<Connection, PacketProtection> clientInitialKeys = new IdentityHashMap<>();
  private final Map<Connection, PacketProtection> clientOneRttKeys = new IdentityHashMap<>();
  private final ServerDemux demux;
  private final ByteBuffer out = ByteBuffer.allocate(2048);
  private final ByteBuffer reply = ByteBuffer.allocate(2048);
  /** The streams each connection's listener has seen opened and not yet closed. */
  private final Map<Connection, Map<Stream, Boolean>> openStreams = new IdentityHashMap<>();
  private long nowNs;
  private long datagramsSent;
  private Consumer<ByteBuffer> sent;

  ServerHarness() {
    this(null);
  }

  /** A server whose crypto is {@code provider}'s (null: the default provider). */
  ServerHarness(dev.tern.transport.udp.crypto.CryptoProvider provider) {
    ConnectionConfig.Builder b = ConnectionConfig.builder().limits(LIMITS)
        .maxProbedDatagramBytes(MAX_PROBED_DATAGRAM);
    if (provider != null) {
      b.cryptoProvider(provider);
    }
    // Seeded, so every input replays the same server (connection IDs and keys included).
    config = TestKeys.withKeys(b.build()).withDeterministicRandom(new Random(7));
    wireInitialKeys = PeerKeys.clientInitialKeys(config, Wire.CLIENT_DCID);
    demux = new ServerDemux(config, this::listenerFor, MAX_CONNECTIONS);
  }

  private ConnectionListener listenerFor(Connection c) {
    Map<Stream, Boolean> streams = new IdentityHashMap<>();
    openStreams.put(c, streams);
    return new ConnectionListener() {
      @Override
      public void onStreamOpened(Stream stream) {
        streams.put(stream, Boolean.TRUE);
      }

      @Override
      public void onClosed(Stream stream) {
        streams.remove(stream);
      }
    };
  }

  /** Hands every datagram the server sends to {@code sink} (borrowed for the call), e.g. a client. */
  void onSend(Consumer<ByteBuffer> sink) {
    this.sent = sink;
  }

  /** The server endpoint's configuration. */
  ConnectionConfig config() {
    return config;
  }

  /**
   * The client's Initial keys for the INITIAL {@code header} describes: those of the connection
   * whose ID it names (derived from that connection's original Destination Connection ID), else
   * those of the ID it names (a connection's first INITIAL).
   */
  PacketProtection clientInitialKeys(ByteBuffer datagram, PacketHeader header) {
    Connection c = connectionNamed(datagram, header);
    if (c != null) {
      return clientInitialKeys.computeIfAbsent(c, PeerKeys::clientInitialKeys);
    }
    if (Wire.CLIENT_DCID.matches(datagram, header.dcidOffset, header.dcidLength)) {
      return wireInitialKeys;
    }
    return PeerKeys.clientInitialKeys(config,
        dev.tern.transport.udp.packet.ConnectionId.read(datagram, header.dcidOffset,
            header.dcidLength));
  }

  private Connection connectionNamed(ByteBuffer datagram, PacketHeader header) {
    for (Connection c : demux.connections()) {
      if (c.localConnectionId().matches(datagram, header.dcidOffset, header.dcidLength)
          || PeerKeys.originalDcidMatches(c, datagram, header.dcidOffset, header.dcidLength)) {
        return c;
      }
    }
    return null;
  }

  /**
   * The client's 1-RTT keys of the connection whose ID the short header {@code header} names, or
   * null if there is none or its handshake has not finished.
   */
  PacketProtection clientOneRttKeys(ByteBuffer datagram, PacketHeader header) {
    for (Connection c : demux.connections()) {
      if (c.localConnectionId().matches(datagram, header.dcidOffset, header.dcidLength)) {
        PacketProtection k = clientOneRttKeys.get(c);
        if (k == null) {
          k = PeerKeys.clientOneRttKeys(c);
          if (k != null) {
            clientOneRttKeys.put(c, k);
          }
        }
        return k;
      }
    }
    return null;
  }

  /** The virtual time, ns. */
  long nowNs() {
    return nowNs;
  }

  /** Datagrams the server has sent so far. */
  long datagramsSent() {
    return datagramsSent;
  }

  /** The endpoint under test. */
  ServerDemux demux() {
    return demux;
  }

  /** Feeds one datagram at the current time, lets the server answer, checks the invariants. */
  Connection receive(ByteBuffer datagram, long pathId) {
    reply.clear();
    int size = datagram.remaining();
    Connection c = demux.onDatagram(datagram, nowNs, pathId, reply);
    check(reply.position() <= size + 64, () -> "stateless reply of " + reply.position()
        + " bytes to a datagram of " + size);
    drainAll();
    // A driver then asks for the next timer and runs it at once if it is due (the datagram may
    // have made one due: a probe owed while the anti-amplification limit applied).
    runDue();
    return c;
  }

  /**
   * Sends what every connection has to send now and runs the due timers, as a driver does after
   * the application wrote or read (checking the invariants).
   */
  void flush() {
    drainAll();
    runDue();
  }

  /** Moves the clock forward and runs every timer that is due, checking the invariants. */
  void advance(long deltaNs) {
    check(deltaNs >= 0, () -> "time goes forward");
    nowNs += deltaNs;
    runDue();
  }

  /** Runs every connection's due timers (sending what they produce) until they settle. */
  private void runDue() {
    for (Connection c : new ArrayList<>(demux.connections())) {
      int rounds = 0;
      while (c.nextTimeoutNs() <= nowNs) {
        check(++rounds <= MAX_TIMER_ROUNDS, () -> "timers never settle at " + nowNs + ": " + c
            + " keeps asking for " + c.nextTimeoutNs());
        c.onTimeout(nowNs);
        drain(c);
      }
    }
    demux.reapClosed();
    checkAll();
  }

  /** Advances the clock to each next deadline in turn, up to {@code steps} times. */
  void runTimers(int steps) {
    for (int i = 0; i < steps; i++) {
      long next = Long.MAX_VALUE;
      for (Connection c : demux.connections()) {
        next = Math.min(next, c.nextTimeoutNs());
      }
      if (next == Long.MAX_VALUE) {
        return;
      }
      advance(Math.max(0, next - nowNs));
    }
  }

  private void drainAll() {
    List<Connection> all = new ArrayList<>(demux.connections());
    for (Connection c : all) {
      drain(c);
    }
  }

  private void drain(Connection c) {
    for (int n = 0; ; n++) {
      check(n <= MAX_BURST_DATAGRAMS, () -> c + " sends more than " + MAX_BURST_DATAGRAMS
          + " datagrams in one go");
      out.clear();
      int size = c.pollDatagram(out, nowNs);
      if (size == 0) {
        return;
      }
      check(size == out.position() && size <= Math.max(c.maxDatagramBytes(), MAX_PROBED_DATAGRAM),
          () -> "datagram of " + size + " bytes (limit " + c.maxDatagramBytes() + ", probes "
              + MAX_PROBED_DATAGRAM + ")");
      datagramsSent++;
      if (sent != null) {
        sent.accept(out.flip());
      }
    }
  }

  private void checkAll() {
    List<Connection> all = demux.connections();
    check(all.size() <= MAX_CONNECTIONS, () -> all.size() + " connections, limit " + MAX_CONNECTIONS);
    for (Connection c : all) {
      long next = c.nextTimeoutNs();
      check(next >= nowNs, () -> "timer in the past: " + c + " next timeout " + next + " < now "
          + nowNs);
      // RFC 9002 §5.3: an RTT sample is at most the time since the packet was sent (the ACK
      // delay only ever shortens it), and every packet was sent at or after time 0.
      long srtt = c.rtt().smoothedRttNs();
      check(c.rtt().minRttNs() == Long.MAX_VALUE || srtt <= nowNs, () -> "smoothed RTT " + srtt
          + " ns exceeds the " + nowNs + " ns the connection has existed");
      check(c.streamCount() <= LIMITS.maxStreams, () -> c.streamCount() + " streams, limit "
          + LIMITS.maxStreams);
      // The harness never reads, so what the peer sends piles up to the windows, no further.
      long held = 0;
      for (Stream s : openStreams.get(c).keySet()) {
        long readable = s.receive().readableBytes();
        check(readable >= 0 && readable <= LIMITS.streamWindowBytes, () -> "stream " + s.id()
            + " holds " + readable + " bytes, window " + LIMITS.streamWindowBytes);
        held += readable;
      }
      long total = held;
      check(total <= LIMITS.connectionWindowBytes, () -> c + " holds " + total + " bytes, window "
          + LIMITS.connectionWindowBytes);
    }
    openStreams.keySet().retainAll(all);
    clientOneRttKeys.keySet().retainAll(all);
    clientInitialKeys.keySet().retainAll(all);
  }

  /** An invariant: an {@link AssertionError} naming what broke (Jazzer reports it as a finding). */
  static void check(boolean ok, Supplier<String> what) {
    if (!ok) {
      throw new AssertionError(what.get());
    }
  }
}
