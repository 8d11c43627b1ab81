package dev.tern.transport.udp.fuzz;

import static dev.tern.transport.udp.fuzz.ServerHarness.check;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.connection.PairKeys;
import dev.tern.transport.udp.connection.PeerKeys;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketNumber;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.packet.PacketType;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;

/**
 * A real client connection and a real server endpoint ({@link ServerHarness}: ServerDemux and its
 * connections) joined by a wire the harness sits on, on one virtual clock. The pair runs a real
 * handshake with the fixed test keys, and the client opens stream 0. From then on the harness can
 * put frames of its own into what either side sends: it opens the next 1-RTT packet the sender
 * really sends with that side's 1-RTT keys (derived anew from the finished handshake,
 * {@link PairKeys}), appends the frames to the sender's own, and seals the packet again under the
 * same packet number (RFC 9001 §5.3, §5.4). So arbitrary frames reach the receiver's frame
 * parsing and connection state past packet protection, while the packet numbers, and with them
 * the acknowledgements, stay the sender's own: the pair keeps talking. It can also send the
 * server a new client INITIAL sealed with the Initial keys of its Destination Connection ID (RFC
 * 9001 §5.2), and the client an unprotected datagram.
 *
 * <p>Checked after every step: nothing is thrown but the protocol's own errors (which close a
 * connection with a {@code TransportError}, never escape), no timer in the past on either side,
 * bounded state (the server's by {@link ServerHarness}; the client's streams, bytes held and
 * datagram bursts likewise). One instance per fuzz input; every random source is seeded.
 */
final class PairHarness {
  /** Rounds of delivery after which the wire must have gone quiet. */
  static final int MAX_PUMP_ROUNDS = 64;
  /** A spliced datagram is at most this long (RFC 9000 §14: what a 1500-byte path carries). */
  static final int MAX_SPLICED_DATAGRAM = 1452;

  /**
   * BouncyCastle's X25519 is about three times as fast as the JDK's, and every input runs a whole
   * handshake; the JDK provider is covered by the other targets.
   */
  final ServerHarness server = new ServerHarness(CryptoProviders.byName("bc"));
  final Connection client;
  private final Map<Stream, Boolean> clientStreams = new IdentityHashMap<>();
  private final ArrayDeque<byte[]> toClient = new ArrayDeque<>();
  private final ByteBuffer out = ByteBuffer.allocate(2048);
  private final ByteBuffer read = ByteBuffer.allocate(64 * 1024);
  private final PacketHeader header = new PacketHeader();
  private Connection serverConnection;
  /** Open and seal keys of each direction, once the handshake has finished. */
  private PacketProtection clientToServerOpen;
  private PacketProtection clientToServerSeal;
  private PacketProtection serverToClientOpen;
  private PacketProtection serverToClientSeal;
  private long largestFromClient = -1;
  private long largestFromServer = -1;
  /** Frames waiting for the next 1-RTT packet of each side. */
  private byte[] pendingToServer;
  private byte[] pendingToClient;
  private int initials;
  /** Splices done, and frames dropped because the sender sent no 1-RTT packet to carry them. */
  long spliced;
  long unspliced;

  PairHarness() {
    client = Connection.client(server.config().withDeterministicRandom(new Random(11)),
        new ConnectionListener() {
          @Override
          public void onStreamOpened(Stream stream) {
            clientStreams.put(stream, Boolean.TRUE);
          }

          @Override
          public void onClosed(Stream stream) {
            clientStreams.remove(stream);
          }
        });
    server.onSend(d -> {
      byte[] copy = new byte[d.remaining()];
      d.get(copy);
      toClient.add(copy);
    });
    pump();
    for (int i = 0; i < 16 && !(client.state() == ConnectionState.ESTABLISHED
        && server.demux().connections().size() == 1
        && server.demux().connections().get(0).state() == ConnectionState.ESTABLISHED); i++) {
      runTimers(1); // pacing and acknowledgement delays move with the clock
    }
    check(client.state() == ConnectionState.ESTABLISHED && server.demux().connections().size() == 1,
        () -> "the pair's handshake did not finish: " + client + ", "
            + server.demux().connections());
    serverConnection = server.demux().connections().get(0);
    clientToServerOpen = PairKeys.oneRttKeys(serverConnection, false);
    clientToServerSeal = PairKeys.oneRttKeys(serverConnection, true);
    serverToClientOpen = PairKeys.oneRttKeys(serverConnection, true);
    serverToClientSeal = PairKeys.oneRttKeys(serverConnection, false);
    Stream first = client.openStream();
    check(first != null && first.id() == 0, () -> "the client cannot open stream 0");
    client.write(first, ByteBuffer.wrap(new byte[] {'h', 'i'}));
    pump();
    runTimers(4);
  }

  /** The server connection of the pair (it may close; it stays this object). */
  Connection serverConnection() {
    return serverConnection;
  }

  /** Moves the clock forward, running both sides' due timers. */
  void advance(long deltaNs) {
    server.advance(deltaNs);
    runClientTimers();
    pump();
  }

  /**
   * Puts {@code frames} into the next 1-RTT packet one side sends, after its own frames; the
   * sender first writes a byte on stream 0 so it has a packet to send.
   */
  void splice(boolean toClient, byte[] frames) {
    if (toClient) {
      pendingToClient = frames;
      Stream s = serverConnection.stream(0);
      if (s != null && serverConnection.state() == ConnectionState.ESTABLISHED) {
        serverConnection.write(s, ByteBuffer.wrap(new byte[] {'s'}));
      }
      server.flush(); // the server sends what it has, as its driver would now
    } else {
      pendingToServer = frames;
      Stream s = client.stream(0);
      if (s != null && client.state() == ConnectionState.ESTABLISHED) {
        client.write(s, ByteBuffer.wrap(new byte[] {'c'}));
      }
    }
    pump();
    for (int i = 0; i < 4 && (pendingToClient != null || pendingToServer != null); i++) {
      runTimers(1); // the sender may wait for its pacer or acknowledgement timer
    }
    if (pendingToClient != null || pendingToServer != null) {
      unspliced++;
      pendingToClient = null;
      pendingToServer = null;
    }
  }

  /**
   * Sends the server a new client INITIAL, padded to 1200 bytes (RFC 9000 §14.1), carrying
   * {@code frames} and sealed with the Initial keys of a Destination Connection ID of its own.
   */
  void initialToServer(byte[] frames) {
    byte[] id = new byte[ConnectionId.V1_LENGTH];
    Arrays.fill(id, (byte) 0x1d);
    id[0] = (byte) initials++;
    ConnectionId dcid = ConnectionId.of(id);
    ByteBuffer b = ByteBuffer.allocate(Math.max(Wire.MIN_INITIAL_DATAGRAM, frames.length + 64)
        + Wire.TAG_BYTES);
    int lengthOffset = PacketWriter.writeInitialHeader(b, Versions.V2, dcid, Wire.CLIENT_SCID, 0,
        2);
    int payload = b.position();
    b.put(frames);
    int pad = Wire.MIN_INITIAL_DATAGRAM - b.position() - Wire.TAG_BYTES;
    if (pad > 0) {
      SimpleFrames.encodePadding(b, pad);
    }
    PacketWriter.patchLength(b, lengthOffset, b.position(), Wire.TAG_BYTES);
    PacketProtection keys = PeerKeys.clientInitialKeys(server.config(), dcid);
    keys.seal(b, 0, payload, 0);
    keys.applyHeaderProtection(b, 0, payload - 2);
    server.receive(b.flip(), 0);
    pump();
  }

  /** Hands the client {@code datagram} as it is (unprotected: the drop path). */
  void rawToClient(byte[] datagram) {
    client.onDatagram(ByteBuffer.wrap(datagram), server.nowNs(), 0);
    runClientTimers();
    pump();
  }

  /** The receiving application reads what stream 0 holds (opening flow-control windows). */
  void readBothSides() {
    Stream c = client.stream(0);
    if (c != null) {
      read.clear();
      client.read(c, read);
    }
    Stream s = serverConnection.stream(0);
    if (s != null) {
      read.clear();
      serverConnection.read(s, read);
    }
    server.flush();
    pump();
  }

  /** Runs both sides' timers to their ends, {@code steps} deadlines at most. */
  void runTimers(int steps) {
    for (int i = 0; i < steps; i++) {
      long next = client.nextTimeoutNs();
      for (Connection c : server.demux().connections()) {
        next = Math.min(next, c.nextTimeoutNs());
      }
      if (next == Long.MAX_VALUE) {
        return;
      }
      advance(Math.max(0, next - server.nowNs()));
    }
  }

  /** Delivers datagrams both ways until the wire is quiet. */
  void pump() {
    for (int round = 0; ; round++) {
      check(round <= MAX_PUMP_ROUNDS, () -> "the pair never goes quiet: " + client + ", "
          + server.demux().connections());
      boolean moved = false;
      while (!toClient.isEmpty()) {
        byte[] d = toClient.poll();
        moved = true;
        client.onDatagram(ByteBuffer.wrap(maybeSplice(d, true)), server.nowNs(), 0);
      }
      runClientTimers();
      for (int n = 0; ; n++) {
        check(n <= ServerHarness.MAX_BURST_DATAGRAMS, () -> client + " sends more than "
            + ServerHarness.MAX_BURST_DATAGRAMS + " datagrams in one go");
        out.clear();
        int size = client.pollDatagram(out, server.nowNs());
        if (size == 0) {
          break;
        }
        check(size == out.position() && size <= Math.max(client.maxDatagramBytes(),
            ServerHarness.MAX_PROBED_DATAGRAM), () -> "client datagram of " + size + " bytes");
        moved = true;
        byte[] d = Arrays.copyOf(out.array(), size);
        server.receive(ByteBuffer.wrap(maybeSplice(d, false)), 0);
      }
      checkClient();
      if (!moved) {
        return;
      }
    }
  }

  private void runClientTimers() {
    long now = server.nowNs();
    int rounds = 0;
    while (client.nextTimeoutNs() <= now) {
      check(++rounds <= ServerHarness.MAX_TIMER_ROUNDS, () -> "client timers never settle at "
          + now + ": " + client.nextTimeoutNs());
      client.onTimeout(now);
      // What it sends goes out with the next pump round.
      for (int n = 0; ; n++) {
        check(n <= ServerHarness.MAX_BURST_DATAGRAMS, () -> "client timer burst");
        out.clear();
        int size = client.pollDatagram(out, now);
        if (size == 0) {
          break;
        }
        byte[] d = Arrays.copyOf(out.array(), size);
        server.receive(ByteBuffer.wrap(maybeSplice(d, false)), 0);
      }
    }
    checkClient();
  }

  private void checkClient() {
    long now = server.nowNs();
    long next = client.nextTimeoutNs();
    check(next >= now, () -> "client timer in the past: " + next + " < now " + now);
    long srtt = client.rtt().smoothedRttNs();
    check(client.rtt().minRttNs() == Long.MAX_VALUE || srtt <= now, () -> "client smoothed RTT "
        + srtt + " ns exceeds the " + now + " ns the connection has existed");
    // The server may open as many streams as the client's limit allows; the client's own stream
    // 0 comes on top.
    check(clientStreams.size() <= ServerHarness.LIMITS.maxStreams, () -> clientStreams.size()
        + " streams opened by the server, limit " + ServerHarness.LIMITS.maxStreams);
    check(client.streamCount() <= ServerHarness.LIMITS.maxStreams + 1, () -> client.streamCount()
        + " client streams, limit " + ServerHarness.LIMITS.maxStreams + " and its own");
    long held = 0;
    Stream own = client.stream(0);
    if (own != null && !clientStreams.containsKey(own)) {
      held += own.receive().readableBytes();
    }
    for (Stream s : clientStreams.keySet()) {
      long readable = s.receive().readableBytes();
      check(readable >= 0 && readable <= ServerHarness.LIMITS.streamWindowBytes, () -> "client"
          + " stream " + s.id() + " holds " + readable + " bytes");
      held += readable;
    }
    long total = held;
    check(total <= ServerHarness.LIMITS.connectionWindowBytes, () -> "client holds " + total
        + " bytes");
  }

  /**
   * {@code d} as sent, or, if frames wait for this direction and {@code d} ends with a 1-RTT
   * packet that opens with generation-0 keys, a copy with the frames appended to that packet
   * and the packet sealed again. Tracks the sender's largest packet number either way (RFC 9000
   * Appendix A.3 needs it to expand the next one).
   */
  private byte[] maybeSplice(byte[] d, boolean toClient) {
    PacketProtection open = toClient ? serverToClientOpen : clientToServerOpen;
    if (open == null) {
      return d;
    }
    byte[] pending = toClient ? pendingToClient : pendingToServer;
    ByteBuffer buf = ByteBuffer.wrap(d.clone());
    int off = 0;
    while (true) {
      if (off >= d.length || !header.parse(buf, off, ConnectionId.V1_LENGTH)
          || header.packetEnd <= off) {
        return d;
      }
      if (header.type == PacketType.ONE_RTT) {
        break;
      }
      off = header.packetEnd;
    }
    int pnLength = open.removeHeaderProtection(buf, header.packetStart, header.pnOffset,
        header.packetEnd);
    if (pnLength < 0) {
      return d;
    }
    header.readPacketNumber(buf, pnLength);
    long largest = toClient ? largestFromServer : largestFromClient;
    long pn = PacketNumber.decode(largest, header.truncatedPn, pnLength * 8);
    if (toClient) {
      largestFromServer = Math.max(largestFromServer, pn);
    } else {
      largestFromClient = Math.max(largestFromClient, pn);
    }
    if (pending == null) {
      return d;
    }
    int plainEnd = open.open(buf, header.packetStart, header.payloadOffset(), header.packetEnd,
        pn);
    if (plainEnd < 0) {
      return d; // after a key update (RFC 9001 §6): generation 0 no longer opens it
    }
    int room = MAX_SPLICED_DATAGRAM - plainEnd - Wire.TAG_BYTES;
    if (room <= 0) {
      return d;
    }
    int n = Math.min(room, pending.length);
    ByteBuffer spliced = ByteBuffer.allocate(plainEnd + n + Wire.TAG_BYTES);
    spliced.put(d, 0, header.packetStart);
    spliced.put(buf.array(), header.packetStart, plainEnd - header.packetStart);
    spliced.put(pending, 0, n);
    PacketProtection seal = toClient ? serverToClientSeal : clientToServerSeal;
    if (!seal.seal(spliced, header.packetStart, header.payloadOffset(), pn)) {
      return d;
    }
    seal.applyHeaderProtection(spliced, header.packetStart, header.pnOffset);
    if (toClient) {
      pendingToClient = null;
    } else {
      pendingToServer = null;
    }
    this.spliced++;
    return spliced.array();
  }
}
