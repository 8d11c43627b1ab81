package dev.tern.transport.udp.sim;

import dev.tern.transport.udp.congestion.CongestionController;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.connection.ServerDemux;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.recovery.RttEstimator;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * The deterministic simulator: one client and one server endpoint, joined by a {@link Channel}
 * per direction, run in virtual time by an event loop. Every random choice derives from the
 * seed, so a run reproduces exactly from it.
 *
 * <p>Address rebinding: from {@link #rebindAtNs} the client's datagrams come from a new path
 * and the server's datagrams to the old path are lost (the NAT mapping is gone), so the server
 * must follow the client by connection ID; with a period, the mapping changes again and again.
 *
 * <p>Adversaries (docs/udp-simulator.md, "Adversaries"): a client that moves to a second network
 * (its own channels, another RTT) at {@link #moveAt}; an off-path spoofer that sends forged
 * datagrams from addresses of its own ({@link #spoofEvery}); an on-path attacker that delays
 * datagrams out of order and replays copies of them, some from forged addresses
 * ({@link #replayAndReorder}). The attackers draw from their own seeded source, so a run still
 * reproduces from its seed.
 */
public final class Simulation {
  private static final long NO_REBIND = Long.MAX_VALUE;
  /** Mixed into the seed for the server's static key. */
  private static final long SERVER_KEY_SEED = 0x7e57_5e4e_4b3e_11L;

  private final long seed;
  private final Channel up;
  private final Channel down;
  final Connection client;
  final ClientApp clientApp;
  ServerDemux demux;
  private final ConnectionConfig serverConfig;
  private int restarts;
  /** Datagrams the restarted server dropped, counted when the next restart replaces it. */
  long droppedByRestartedServer;
  ServerApp serverApp;
  Connection server;
  private final PriorityQueue<Event> events = new PriorityQueue<>();
  private final ByteBuffer out = ByteBuffer.allocate(2048);
  private final ByteBuffer reply = ByteBuffer.allocate(2048);
  private final long[] deliverAt = new long[2];
  private final boolean[] corrupt = new boolean[2];
  private final Random corruptRandom;
  private long nowNs;
  private long eventSeq;
  private long clientPath;
  long rebindAtNs = NO_REBIND;
  private long rebindPeriodNs;
  private long nextRebindNs = NO_REBIND;
  private Random rebindJitter;
  /** How often the client's address changed. */
  int rebinds;
  /** The path id of the second network a moving client goes to. */
  static final long MOVED_PATH = 1L << 40;
  /** Path ids at and above this are addresses an attacker forged. */
  static final long FORGED_PATHS = 1L << 50;
  private Channel movedUp;
  private Channel movedDown;
  private long moveAtNs = NO_REBIND;
  private Random adversary;
  private double replayProbability;
  private double reorderProbability;
  private long reorderMaxNs;
  private long replayMaxDelayNs;
  private long spoofIntervalNs;
  private long nextSpoofNs = NO_REBIND;
  private long forgedPath = FORGED_PATHS;
  /** Datagrams an attacker replayed, delayed out of order, or forged. */
  long replayed;
  long reordered;
  long spoofed;
  /** Bytes the server sent in answer to forged datagrams (to addresses the attacker chose). */
  long reflectedBytes;
  /** The most connections the server held at once. */
  int maxServerConnections;
  /** The client's smoothed RTT just before it moved and at the end of the run, ns (-1: none). */
  long srttBeforeMoveNs = -1;
  private DeliveryObserver observer;
  private boolean stopOnFatal = true;
  long spins;
  /** Per direction (0: to the server), the instant of the current burst and its bytes. */
  private final long[] burstAtNs = {-1, -1};
  private final long[] burstBytes = new long[2];
  /** Per direction, the most bytes its sender released at one instant (datagrams sent together). */
  final long[] maxBurstBytes = new long[2];
  /** The largest RFC 9002 §6.2.1 probe timeout either end's RTT estimate gave, ns. */
  long maxPtoNs;
  private final long clientAckDelayNs;
  private final long serverAckDelayNs;
  long datagramsUp;
  long datagramsDown;
  /**
   * Per server connection, the bytes of the datagrams the demux handed it and the bytes it sent
   * while the client's address was not validated (RFC 9000 §8.1).
   */
  private final java.util.Map<Connection, long[]> amplification = new java.util.IdentityHashMap<>();
  /**
   * Times the server, before validating an address, had sent more than three times what it had
   * received from it, or answered a datagram statelessly with more than three times its size.
   */
  long amplificationViolations;
  /** The first violation, described. */
  String amplificationViolation;
  /**
   * Per server connection and path id, the bytes of the datagrams from that path the demux handed
   * the connection, and the bytes the connection sent to that path while it was not validated
   * (RFC 9000 §8.1 for the handshake's path, §9.3 for one the client moved to).
   */
  private final java.util.Map<Connection, java.util.Map<Long, long[]>> pathAmplification =
      new java.util.IdentityHashMap<>();
  /** Times a server sent to an unvalidated path more than three times what came from it. */
  long pathAmplificationViolations;
  /** The first such violation, described. */
  String pathAmplificationViolation;
  /** Bytes servers sent to a path they had moved to before validating it. */
  long bytesToUnvalidatedPaths;
  /** The virtual clock's epoch for the server's tokens, ms (any fixed value). */
  static final long TOKEN_EPOCH_MS = 1_700_000_000_000L;

  private static final class Event implements Comparable<Event> {
    final long atNs;
    final long seq;
    final boolean toServer;
    final long pathId;
    final byte[] data;

    Event(long atNs, long seq, boolean toServer, long pathId, byte[] data) {
      this.atNs = atNs;
      this.seq = seq;
      this.toServer = toServer;
      this.pathId = pathId;
      this.data = data;
    }

    @Override
    public int compareTo(Event o) {
      int c = Long.compare(atNs, o.atNs);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  /** A simulation of {@code calls} between endpoints configured by the two configs. */
  public Simulation(long seed, Channel up, Channel down, ConnectionConfig clientConfig,
      ConnectionConfig serverConfig, List<Call> calls) {
    this.seed = seed;
    this.clientAckDelayNs = clientConfig.maxAckDelayMs() * 1_000_000L;
    this.serverAckDelayNs = serverConfig.maxAckDelayMs() * 1_000_000L;
    this.up = up;
    this.down = down;
    this.corruptRandom = new Random(seed ^ 0x5DEECE66DL);
    this.clientApp = new ClientApp(seed, calls);
    if (clientConfig.pinnedServerKeys().isEmpty() && serverConfig.serverStaticKeys().isEmpty()) {
      // The server's static key from the seed too, pinned by the client: runs replay exactly.
      byte[] key = new byte[32];
      new Random(seed ^ SERVER_KEY_SEED).nextBytes(key);
      clientConfig = clientConfig.withPinnedServerKeys(new PinnedServerKey(1,
          clientConfig.cryptoProvider().x25519().publicKey(key)));
      serverConfig = serverConfig.withServerStaticKeys(new ServerStaticKey(1, key));
    }
    // Seeded sources, injected through the configurations, keep every run reproducible (the
    // handshake's ephemeral keys included).
    this.client = Connection.client(clientConfig.withDeterministicRandom(new Random(seed)),
        clientApp);
    clientApp.attach(client);
    // Tokens are stamped by the virtual clock (docs/protocol.md §9.8), so runs replay exactly.
    this.serverConfig = serverConfig.withAddressValidation(serverConfig.addressValidation()
        .withClockMs(() -> TOKEN_EPOCH_MS + nowNs / 1_000_000L));
    this.demux = newDemux(new Random(~seed));
  }

  private ServerDemux newDemux(Random random) {
    return new ServerDemux(serverConfig.withDeterministicRandom(random), c -> {
      // The client's rebindings keep its host (a NAT gives it another port); a move to the
      // second network, or an attacker's forged address, is another host.
      c.setPathOracle((a, b) -> a < MOVED_PATH && b < MOVED_PATH);
      ServerApp app = new ServerApp(seed, c);
      if (server == null) {
        server = c;
        serverApp = app;
      }
      return app;
    }, 16);
  }

  /**
   * The server restarts: every connection it held is gone, and a new server with the same
   * static key and configuration takes the datagrams from now on.
   */
  public void restartServer() {
    demux = newDemux(new Random(~seed + ++restarts));
    server = null;
    serverApp = null;
  }

  /** Sees every datagram the client receives, right after the client processed it. */
  @FunctionalInterface
  public interface DeliveryObserver {
    /** {@code datagram} (a copy) reached the client at {@code nowNs} and was processed. */
    void delivered(long nowNs, byte[] datagram);
  }

  /** Sets the observer of datagrams delivered to the client. */
  public void observeClientDeliveries(DeliveryObserver o) {
    this.observer = o;
  }

  /** Whether {@link #runUntil} stops at an application's fatal error (default: yes). */
  public void stopOnFatal(boolean stop) {
    this.stopOnFatal = stop;
  }

  /** Makes the client's address change at {@code atNs}. */
  public void rebindAt(long atNs) {
    rebindEvery(atNs, 0);
  }

  /**
   * Makes the client's address change at {@code firstNs} and then every {@code periodNs} until
   * every call has completed (the client then goes quiet: a NAT binding that changed after it, no
   * datagram of the client's would show the server).
   */
  public void rebindEvery(long firstNs, long periodNs) {
    rebindEvery(firstNs, periodNs, null);
  }

  /**
   * As {@link #rebindEvery(long, long)}, each interval drawn from {@code jitter} between half
   * and one and a half periods (null: exactly one period): a NAT's changes keep no step with the
   * client's timers.
   */
  public void rebindEvery(long firstNs, long periodNs, Random jitter) {
    this.rebindAtNs = firstNs;
    this.nextRebindNs = firstNs;
    this.rebindPeriodNs = periodNs;
    this.rebindJitter = jitter;
  }

  /** Moves the client at {@code atNs} to a second network joined by {@code up} and {@code down}. */
  public void moveAt(long atNs, Channel up, Channel down) {
    this.moveAtNs = atNs;
    this.movedUp = up;
    this.movedDown = down;
  }

  /**
   * An off-path attacker: every {@code intervalNs} a forged datagram (garbage, an INITIAL that
   * does not open, a short header with a guessed connection ID, an unknown version) reaches the
   * server from a fresh address, or the client as if from the server.
   */
  public void spoofEvery(long intervalNs, long seed) {
    this.spoofIntervalNs = intervalNs;
    this.nextSpoofNs = intervalNs;
    this.adversary = new Random(seed);
  }

  /**
   * An on-path attacker: each datagram the link delivers is delayed by up to {@code reorderMaxNs}
   * with probability {@code reorder} (so it arrives out of order), and with probability
   * {@code replay} a copy of it is delivered again up to {@code replayMaxDelayNs} later, half of
   * the copies from a forged address.
   */
  public void replayAndReorder(double replay, double reorder, long reorderMaxNs,
      long replayMaxDelayNs, long seed) {
    this.replayProbability = replay;
    this.reorderProbability = reorder;
    this.reorderMaxNs = reorderMaxNs;
    this.replayMaxDelayNs = replayMaxDelayNs;
    this.adversary = new Random(seed);
  }

  /** The current virtual time. */
  public long nowNs() {
    return nowNs;
  }

  /** The client connection. */
  public Connection client() {
    return client;
  }

  /** The server connection, once created. */
  public Connection server() {
    return server;
  }

  /** The client application's fatal error, or the server's, or null. */
  public String fatal() {
    if (clientApp.fatal != null) {
      return clientApp.fatal;
    }
    return serverApp == null ? null : serverApp.fatal;
  }

  /** Whether every call completed. */
  public boolean allCallsDone() {
    return clientApp.allDone();
  }

  /**
   * Runs until {@code stop} holds, nothing is left to happen, or {@code limitNs}.
   *
   * @return whether {@code stop} held
   */
  public boolean runUntil(java.util.function.BooleanSupplier stop, long limitNs) {
    long lastProgressNs = -1;
    int stuck = 0;
    while (!stop.getAsBoolean()) {
      if (stopOnFatal && fatal() != null) {
        return false;
      }
      long next = nextEventNs();
      if (next == Long.MAX_VALUE || next > limitNs) {
        nowNs = Math.max(nowNs, Math.min(next, limitNs));
        return stop.getAsBoolean();
      }
      if (next <= nowNs) {
        // A timer at or before now that produced nothing: step on rather than spin.
        if (lastProgressNs == nowNs && ++stuck > 1000) {
          spins++;
          next = nowNs + 1_000;
          stuck = 0;
        }
      } else {
        stuck = 0;
      }
      nowNs = Math.max(nowNs, next);
      lastProgressNs = nowNs;
      step();
    }
    return true;
  }

  private long nextEventNs() {
    long t = events.isEmpty() ? Long.MAX_VALUE : events.peek().atNs;
    t = Math.min(t, client.nextTimeoutNs());
    long start = clientApp.nextStartNs();
    if (start > nowNs) {
      t = Math.min(t, start);
    }
    if (rebindPeriodNs == 0 || !clientApp.allDone()) {
      t = Math.min(t, nextRebindNs);
    }
    if (clientPath != MOVED_PATH) {
      t = Math.min(t, moveAtNs);
    }
    t = Math.min(t, nextSpoofNs);
    for (Connection c : demux.connections()) {
      t = Math.min(t, c.nextTimeoutNs());
    }
    return t;
  }

  private void step() {
    while (nowNs >= nextRebindNs && (rebindPeriodNs == 0 || !clientApp.allDone())) {
      clientPath++;
      rebinds++;
      long interval = rebindJitter == null ? rebindPeriodNs
          : rebindPeriodNs / 2 + (long) (rebindJitter.nextDouble() * rebindPeriodNs);
      nextRebindNs = rebindPeriodNs > 0 ? nextRebindNs + interval : NO_REBIND;
    }
    if (nowNs >= moveAtNs && clientPath != MOVED_PATH) {
      srttBeforeMoveNs = client.rtt().smoothedRttNs();
      clientPath = MOVED_PATH;
    }
    while (nowNs >= nextSpoofNs) {
      spoof();
      nextSpoofNs += spoofIntervalNs;
    }
    while (!events.isEmpty() && events.peek().atNs <= nowNs) {
      deliver(events.poll());
    }
    if (client.nextTimeoutNs() <= nowNs) {
      client.onTimeout(nowNs);
    }
    for (Connection c : demux.connections()) {
      if (c.nextTimeoutNs() <= nowNs) {
        c.onTimeout(nowNs);
      }
    }
    clientApp.setNow(nowNs);
    clientApp.pump();
    if (serverApp != null) {
      serverApp.pump();
    }
    flush();
    maxServerConnections = Math.max(maxServerConnections, demux.connections().size());
    notePto(client, serverAckDelayNs);
    if (server != null) {
      notePto(server, clientAckDelayNs);
    }
  }

  /**
   * Keeps the largest probe timeout RFC 9002 §6.2.1 computes from {@code c}'s RTT estimate (with
   * the peer's max_ack_delay), whatever timer the connection actually arms: the allowance that
   * bounds a run whose losses only a timer can reveal (RunResult.boundNs).
   */
  private void notePto(Connection c, long peerAckDelayNs) {
    CongestionController.RttView rtt = c.rtt();
    if (rtt.minRttNs() != Long.MAX_VALUE) {
      long pto = rtt.smoothedRttNs() + Math.max(4 * rtt.rttVarNs(), RttEstimator.GRANULARITY_NS)
          + peerAckDelayNs;
      maxPtoNs = Math.max(maxPtoNs, pto);
    }
  }

  /** The most bytes the client ({@code toServer}) or the server released at one instant. */
  public long maxBurstBytes(boolean toServer) {
    return maxBurstBytes[toServer ? 0 : 1];
  }

  /** The largest probe timeout either end's RTT estimate gave during the run, ns (0: none). */
  public long maxPtoNs() {
    return maxPtoNs;
  }

  private void deliver(Event e) {
    ByteBuffer b = ByteBuffer.wrap(e.data);
    if (e.toServer) {
      reply.clear();
      Connection c = demux.onDatagram(b, nowNs, e.pathId, reply);
      if (c != null) {
        amplification.computeIfAbsent(c, k -> new long[2])[0] += e.data.length;
        pathCounters(c, e.pathId)[0] += e.data.length;
      }
      if (reply.position() > 3L * e.data.length) {
        amplification("a stateless answer of " + reply.position() + " bytes to a datagram of "
            + e.data.length);
      }
      if (reply.position() > 0) {
        reply.flip();
        if (e.pathId >= FORGED_PATHS) {
          reflectedBytes += reply.remaining(); // to the address the attacker forged
        } else {
          send(reply, false, e.pathId);
        }
      }
    } else {
      clientApp.setNow(nowNs);
      client.onDatagram(b, nowNs, 0);
      if (observer != null) {
        observer.delivered(nowNs, e.data);
      }
    }
  }

  private void flush() {
    boolean any = true;
    while (any) {
      any = false;
      out.clear();
      if (client.pollDatagram(out, nowNs) > 0) {
        out.flip();
        send(out, true, clientPath);
        any = true;
      }
      for (Connection c : demux.connections()) {
        out.clear();
        boolean unvalidated = !c.addressValidated();
        long pathId = c.currentPathId();
        if (c.pollDatagram(out, nowNs) > 0) {
          out.flip();
          long[] a = amplification.computeIfAbsent(c, k -> new long[2]);
          if (unvalidated) {
            a[1] += out.remaining();
            if (a[1] > 3 * a[0]) {
              amplification("server " + c + " sent " + a[1] + " bytes before validation, having"
                  + " received " + a[0]);
            }
            long[] p = pathCounters(c, pathId);
            p[1] += out.remaining();
            if (c.stats().pathChanges > 0) {
              bytesToUnvalidatedPaths += out.remaining();
            }
            if (p[1] > 3 * p[0] && pathAmplificationViolations++ == 0) {
              pathAmplificationViolation = "server " + c + " sent " + p[1] + " bytes to path "
                  + pathId + " before validating it, having received " + p[0] + " from it, at "
                  + nowNs / 1e6 + " ms";
            }
          }
          if (c.currentPathId() == clientPath) {
            send(out, false, clientPath);
          } else {
            datagramsDown++; // to an address the client no longer has: lost
            if (c.currentPathId() >= FORGED_PATHS) {
              reflectedBytes += out.remaining();
            }
          }
          any = true;
        }
      }
    }
  }

  private void send(ByteBuffer datagram, boolean toServer, long pathId) {
    int d = toServer ? 0 : 1;
    if (burstAtNs[d] == nowNs) {
      burstBytes[d] += datagram.remaining();
    } else {
      burstAtNs[d] = nowNs;
      burstBytes[d] = datagram.remaining();
    }
    maxBurstBytes[d] = Math.max(maxBurstBytes[d], burstBytes[d]);
    Channel ch = pathId == MOVED_PATH ? (toServer ? movedUp : movedDown) : toServer ? up : down;
    if (toServer) {
      datagramsUp++;
    } else {
      datagramsDown++;
    }
    int copies = ch.transmit(nowNs, datagram, deliverAt, corrupt);
    for (int i = 0; i < copies; i++) {
      byte[] data = new byte[datagram.remaining()];
      datagram.duplicate().get(data);
      if (corrupt[i]) {
        int bit = corruptRandom.nextInt(data.length * 8);
        data[bit >>> 3] ^= (byte) (1 << (bit & 7));
      }
      long at = Math.max(deliverAt[i], nowNs);
      if (reorderProbability > 0 && adversary.nextDouble() < reorderProbability) {
        at += 1 + (long) (adversary.nextDouble() * reorderMaxNs);
        reordered++;
      }
      events.add(new Event(at, eventSeq++, toServer, pathId, data));
      if (replayProbability > 0 && adversary.nextDouble() < replayProbability) {
        long later = at + 1 + (long) (adversary.nextDouble() * replayMaxDelayNs);
        long from = toServer && adversary.nextBoolean() ? forgedPath++ : pathId;
        events.add(new Event(later, eventSeq++, toServer, from, data.clone()));
        replayed++;
      }
    }
  }

  private long[] pathCounters(Connection c, long pathId) {
    return pathAmplification.computeIfAbsent(c, k -> new java.util.HashMap<>())
        .computeIfAbsent(pathId, k -> new long[2]);
  }

  private void amplification(String what) {
    if (amplificationViolations++ == 0) {
      amplificationViolation = what + " at " + nowNs / 1e6 + " ms";
    }
  }

  /** One forged datagram from the off-path spoofer (see {@link #spoofEvery}). */
  private void spoof() {
    spoofed++;
    int kind = adversary.nextInt(6);
    byte[] d;
    switch (kind) {
      case 0: // garbage
        d = new byte[1 + adversary.nextInt(1500)];
        adversary.nextBytes(d);
        break;
      case 1: // an INITIAL of version 2 from a client nobody knows: it does not open
      case 3: // an unknown version: answered statelessly with Version Negotiation
        d = new byte[1200 + adversary.nextInt(200)];
        adversary.nextBytes(d);
        d[0] = (byte) 0xC0;
        int version = kind == 1 ? 0x544e0002 : 0x1a2a3a4a;
        d[1] = (byte) (version >>> 24);
        d[2] = (byte) (version >>> 16);
        d[3] = (byte) (version >>> 8);
        d[4] = (byte) version;
        d[5] = 8;
        d[14] = 8;
        d[23] = 0; // no token
        d[24] = (byte) (0x40 | ((d.length - 26) >>> 8));
        d[25] = (byte) (d.length - 26);
        break;
      default: // a short header with a guessed connection ID
        d = new byte[20 + adversary.nextInt(1300)];
        adversary.nextBytes(d);
        d[0] = (byte) (0x40 | (d[0] & 0x3f));
        break;
    }
    if (kind == 5) {
      // To the client, as if from the server: the client has one address, anyone may send to it.
      clientApp.setNow(nowNs);
      client.onDatagram(ByteBuffer.wrap(d), nowNs, 0);
      return;
    }
    events.add(new Event(nowNs, eventSeq++, true, forgedPath++, d));
  }

  /** Whether both ends have nothing outstanding (no stream, nothing unacknowledged). */
  public boolean quiescent() {
    return client.isQuiescent() && (server == null || server.isQuiescent());
  }

  /** Closes the client gracefully and runs until both ends are closed or draining ends. */
  public void closeAndDrain(long limitNs) {
    client.close(0, "done");
    runUntil(() -> client.state() == ConnectionState.CLOSED
        && (server == null || server.state() == ConnectionState.CLOSED), limitNs);
  }
}
