package dev.tern.transport.udp.fuzz;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.connection.TransportParameters;
import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.ConnectionCloseFrame;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.DataBlockedFrame;
import dev.tern.transport.udp.frame.MaxDataFrame;
import dev.tern.transport.udp.frame.MaxStreamDataFrame;
import dev.tern.transport.udp.frame.MaxStreamsFrame;
import dev.tern.transport.udp.frame.NewConnectionIdFrame;
import dev.tern.transport.udp.frame.PathChallengeFrame;
import dev.tern.transport.udp.frame.PathResponseFrame;
import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.frame.StopSendingFrame;
import dev.tern.transport.udp.frame.StreamDataBlockedFrame;
import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.packet.PlaintextProtection;
import dev.tern.transport.udp.packet.VarInt;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.Stream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Random;

/**
 * The checked-in seed corpus, built with the protocol's own encoders and a real client. Keys are
 * paths under the fuzz package's resource directory in Jazzer's layout
 * ({@code <Class>Inputs/<method>/<name>}); {@link SeedCorpusTest} keeps the files equal to this.
 */
final class Seeds {
  /**
   * Known-bad input 1: a max_idle_timeout of about 9.3e12 ms, whose nanoseconds (9.3e18) no longer
   * fit in a signed 64-bit integer.
   */
  static final long HUGE_IDLE_TIMEOUT_MS = 9_300_000_000_000L;
  /** Known-bad input 2: an ACK Delay field at the varint maximum, 2^62-1. */
  static final long HUGE_ACK_DELAY = VarInt.MAX;
  /**
   * Known-bad input 2 for the whole receive path: an ACK Delay just below the varint maximum,
   * 2^62-2^40, whose (delay << 3) * 1000 wraps to about -8.8e15 ns, so an RTT sample that
   * subtracts it grows by months instead of shrinking.
   */
  static final long HUGE_ACK_DELAY_SERVER = VarInt.MAX - (1L << 40) + 1;

  private Seeds() {}

  /** Every seed by its path. */
  static Map<String, byte[]> all() {
    Map<String, byte[]> m = new LinkedHashMap<>();
    byte[] shortDcid = {8};
    byte[] initial = firstClientDatagram();
    m.put("PacketHeaderFuzzTestInputs/headers/client-initial", concat(shortDcid, initial));
    m.put("PacketHeaderFuzzTestInputs/headers/short-header", concat(shortDcid, shortHeaderPacket()));
    m.put("PacketHeaderFuzzTestInputs/headers/version-negotiation",
        concat(shortDcid, versionNegotiation(initial)));

    m.put("FrameReaderFuzzTestInputs/frames/one-of-each", oneOfEachFrame());
    m.put("FrameReaderFuzzTestInputs/frames/ack-ranges-timestamps", ackWithRangesAndTimestamps());
    m.put("FrameReaderFuzzTestInputs/frames/ack-delay-near-varint-max",
        Wire.ackWithRawDelay(5, HUGE_ACK_DELAY, 2));

    byte[] hello = Wire.encode(Wire.clientHello());
    TransportParameters serverHello = Wire.clientHello();
    serverHello.messageType = TransportParameters.SERVER_HELLO;
    serverHello.wantsReceiveTimestamps = true;
    byte[] hugeIdle = Wire.encode(hugeIdleTimeoutHello());
    m.put("TransportParametersFuzzTestInputs/parameters/client-hello", hello);
    m.put("TransportParametersFuzzTestInputs/parameters/server-hello", Wire.encode(serverHello));
    m.put("TransportParametersFuzzTestInputs/parameters/max-idle-timeout-9.3e12-ms", hugeIdle);
    m.put("TransportParametersFuzzTestInputs/parameters/version-information-chosen-0",
        versionInformationChosenZero());

    m.put("HandshakeFuzzTestInputs/clientHello/client-hello", hello);
    m.put("HandshakeFuzzTestInputs/clientHello/max-idle-timeout-9.3e12-ms", hugeIdle);

    m.put("ServerReceiveFuzzTestInputs/datagrams/conversation", conversation());
    m.put("ServerReceiveFuzzTestInputs/datagrams/max-idle-timeout-9.3e12-ms", concat(
        ServerReceiveFuzzTest.record(ServerReceiveFuzzTest.RESEAL,
            Wire.initialWithHandshake(hugeIdle)),
        ServerReceiveFuzzTest.record(advanceMicros(20), new byte[0])));
    m.put("ServerReceiveFuzzTestInputs/datagrams/ack-delay-near-varint-max", conversation(true));
    m.put("ServerReceiveFuzzTestInputs/datagrams/amplification-limited-pto-v2",
        amplificationLimitedPto());
    m.putAll(PairSeeds.all());
    return m;
  }

  /**
   * The fuzzer's find {@code amplification-limited-pto} (checked in as found, in version 1's
   * plaintext) with its first datagram, a version-1 client INITIAL, replaced by the encrypted
   * version's (in open form, with the re-seal bit): the rest are datagrams that never validate the
   * client's address, kept byte for byte.
   */
  static byte[] amplificationLimitedPto() {
    byte[] found;
    try (java.io.InputStream in = Seeds.class.getResourceAsStream(
        "ServerReceiveFuzzTestInputs/datagrams/amplification-limited-pto")) {
      found = in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    int control = found[0] & 0xff;
    int first = 3 + (((found[1] & 0xff) << 8) | (found[2] & 0xff));
    return concat(ServerReceiveFuzzTest.record(control | ServerReceiveFuzzTest.RESEAL,
        Wire.initialWithHandshake(Wire.encode(Wire.clientHello()))),
        Arrays.copyOfRange(found, first, found.length));
  }

  /** A ClientHello valid in every field but max_idle_timeout. */
  static TransportParameters hugeIdleTimeoutHello() {
    TransportParameters p = Wire.clientHello();
    p.maxIdleTimeoutMs = HUGE_IDLE_TIMEOUT_MS;
    return p;
  }

  /**
   * A finding of the fuzzer: a ClientHello whose version_information names Chosen Version 0, the
   * value reserved for Version Negotiation.
   */
  static byte[] versionInformationChosenZero() {
    TransportParameters p = Wire.clientHello();
    p.chosenVersion = 0; // encode() writes version_information only for a non-zero version
    ByteBuffer b = ByteBuffer.allocate(TransportParameters.MAX_MESSAGE_BYTES);
    p.encode(b);
    VarInt.write(b, 0x11); // version_information (docs/protocol.md §7)
    VarInt.write(b, 8);
    b.putInt(0).putInt(Versions.V2);
    return Arrays.copyOf(b.array(), b.position());
  }

  /** The control bits of {@link ServerReceiveFuzzTest} that advance the clock 2^n microseconds. */
  static int advanceMicros(int n) {
    return n << 3;
  }

  private static byte[] firstClientDatagram() {
    Connection client = Connection.client(new ServerHarness().config()
        .withDeterministicRandom(new Random(11)), new ConnectionListener() {});
    ByteBuffer out = ByteBuffer.allocate(2048);
    client.pollDatagram(out, 0);
    return Arrays.copyOf(out.array(), out.position());
  }

  private static byte[] shortHeaderPacket() {
    ByteBuffer out = ByteBuffer.allocate(256);
    PacketWriter.writeShortHeader(out, Wire.CLIENT_DCID, 0x1234, 2);
    int payload = out.position();
    SimpleFrames.encodePing(out);
    MaxDataFrame.encode(out, 1 << 20);
    new PlaintextProtection().seal(out, 0, payload, 0x1234);
    return Arrays.copyOf(out.array(), out.position());
  }

  private static byte[] versionNegotiation(byte[] initial) {
    ByteBuffer in = ByteBuffer.wrap(initial);
    ByteBuffer out = ByteBuffer.allocate(256);
    // The client's IDs sit at fixed offsets of a long header: dcid at 6, scid after it.
    int dcidLength = initial[5];
    int scidOffset = 6 + dcidLength + 1;
    PacketWriter.writeVersionNegotiation(out, 0x2a, in, 6, dcidLength, scidOffset,
        initial[6 + dcidLength], new int[] {Versions.V2, 0x1a2a3a4a});
    return Arrays.copyOf(out.array(), out.position());
  }

  private static byte[] oneOfEachFrame() {
    ByteBuffer out = ByteBuffer.allocate(1024);
    SimpleFrames.encodePadding(out, 2);
    SimpleFrames.encodePing(out);
    AckFrame.encode(out, new long[] {40, 20}, new long[] {30, 3}, 2, 1_000_000, null, null, 0,
        100);
    ResetStreamFrame.encode(out, 4, 7, 1000);
    StopSendingFrame.encode(out, 8, 9);
    byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
    CryptoFrame.encodeHeader(out, 0, hello.length);
    out.put(hello);
    StreamFrame.encodeHeader(out, 4, 1000, hello.length, true);
    out.put(hello);
    MaxDataFrame.encode(out, 100_000);
    MaxStreamDataFrame.encode(out, 4, 30_000);
    MaxStreamsFrame.encode(out, 5);
    DataBlockedFrame.encode(out, 99_999);
    StreamDataBlockedFrame.encode(out, 4, 29_999);
    NewConnectionIdFrame.encode(out, 2, 1, Wire.CLIENT_SCID, new byte[16]);
    PathChallengeFrame.encode(out, 0x0102030405060708L);
    PathResponseFrame.encode(out, 0x0807060504030201L);
    SimpleFrames.encodeHandshakeDone(out);
    ConnectionCloseFrame.encodeTransport(out, TransportError.FLOW_CONTROL_ERROR, 0x08, hello);
    ConnectionCloseFrame.encodeApplication(out, 3, hello);
    return Arrays.copyOf(out.array(), out.position());
  }

  private static byte[] ackWithRangesAndTimestamps() {
    ByteBuffer out = ByteBuffer.allocate(256);
    long[] hi = {100, 90, 50, 10};
    long[] lo = {95, 60, 40, 0};
    AckFrame.encode(out, hi, lo, 4, 8_000, new long[] {100, 97, 95}, new long[] {5000, 4000, 3000},
        3, 200);
    return Arrays.copyOf(out.array(), out.position());
  }

  /**
   * A real client's side of a whole conversation with the harness's server: the handshake, one
   * call's worth of stream data and the acknowledgements, recorded in the server target's layout
   * with the clock moving a millisecond between datagrams.
   */
  private static byte[] conversation() {
    return conversation(false);
  }

  /**
   * @param hugeAckDelay whether to end with known-bad input 2: the client has the server send an
   *     ack-eliciting packet (a PATH_RESPONSE) and acknowledges it, a millisecond later, with an
   *     ACK Delay near the varint maximum. That is the server's second RTT sample, the first one
   *     that takes the delay into account (RFC 9002 §5.3).
   */
  private static byte[] conversation(boolean hugeAckDelay) {
    ServerHarness server = new ServerHarness();
    Queue<byte[]> toClient = new ArrayDeque<>();
    long[] serverLargestPn = {-1};
    PacketHeader header = new PacketHeader();
    server.onSend(d -> toClient.add(Arrays.copyOfRange(d.array(), d.position(), d.limit())));
    Connection client = Connection.client(
        server.config().withDeterministicRandom(new Random(11)), new ConnectionListener() {});
    ByteArrayOutputStream record = new ByteArrayOutputStream();
    ByteBuffer out = ByteBuffer.allocate(2048);
    Stream stream = null;
    for (int round = 0; round < 40 && !done(client, stream); round++) {
      if (stream == null && client.state() == ConnectionState.ESTABLISHED) {
        stream = client.openStream();
        byte[] body = new byte[3000];
        Arrays.fill(body, (byte) 'x');
        client.write(stream, ByteBuffer.wrap(body));
        client.finish(stream);
      }
      // Each round starts a millisecond later; a round with nothing to send records an empty
      // datagram just to move the clock.
      server.advance(1024_000);
      if (client.nextTimeoutNs() <= server.nowNs()) {
        client.onTimeout(server.nowNs());
      }
      int control = ServerReceiveFuzzTest.RESEAL | advanceMicros(10);
      while (client.pollDatagram(out.clear(), server.nowNs()) > 0) {
        byte[] d = Arrays.copyOf(out.array(), out.position());
        server.receive(ByteBuffer.wrap(d), 0);
        // Recorded as the server left it: opened in place, so in the open form Wire.reseal
        // protects again (to the same bytes, on replay).
        record.writeBytes(ServerReceiveFuzzTest.record(control, d));
        control = ServerReceiveFuzzTest.RESEAL;
      }
      if (control != ServerReceiveFuzzTest.RESEAL) {
        record.writeBytes(ServerReceiveFuzzTest.record(control, new byte[0]));
        server.receive(ByteBuffer.allocate(0), 0);
      }
      deliver(toClient, client, server.nowNs(), serverLargestPn);
    }
    if (hugeAckDelay) {
      ConnectionId serverCid = server.demux().connections().get(0).localConnectionId();
      ByteBuffer challenge = ByteBuffer.allocate(16);
      PathChallengeFrame.encode(challenge, 0x5eed);
      byte[] d = oneRtt(serverCid, 1000, Arrays.copyOf(challenge.array(), challenge.position()));
      record.writeBytes(ServerReceiveFuzzTest.record(ServerReceiveFuzzTest.RESEAL
          | advanceMicros(10), d));
      server.advance(1024_000);
      ByteBuffer sealed = ByteBuffer.wrap(d.clone());
      Wire.reseal(sealed, header, server);
      server.receive(sealed, 0);
      deliver(toClient, client, server.nowNs(), serverLargestPn); // the PATH_RESPONSE
      d = oneRtt(serverCid, 1001, Wire.ackWithRawDelay(serverLargestPn[0], HUGE_ACK_DELAY_SERVER, 0));
      record.writeBytes(ServerReceiveFuzzTest.record(ServerReceiveFuzzTest.RESEAL
          | advanceMicros(10), d));
    }
    return record.toByteArray();
  }

  /**
   * Hands the server's datagrams to the client, which opens them in place, and notes the largest
   * 1-RTT packet number among them (readable once opened).
   */
  private static void deliver(Queue<byte[]> toClient, Connection client, long nowNs,
      long[] largestPn) {
    PacketHeader header = new PacketHeader();
    while (!toClient.isEmpty()) {
      byte[] d = toClient.poll();
      client.onDatagram(ByteBuffer.wrap(d), nowNs);
      ByteBuffer opened = ByteBuffer.wrap(d);
      for (int at = 0; at < d.length && header.parse(opened, at, ConnectionId.V1_LENGTH);
          at = header.packetEnd) {
        if (header.type == dev.tern.transport.udp.packet.PacketType.ONE_RTT) {
          largestPn[0] = Math.max(largestPn[0], header.truncatedPn);
        }
      }
    }
  }

  /** A client 1-RTT packet to {@code dcid} carrying {@code frames}, in open form. */
  private static byte[] oneRtt(ConnectionId dcid, long pn, byte[] frames) {
    ByteBuffer out = ByteBuffer.allocate(frames.length + 64);
    PacketWriter.writeShortHeader(out, dcid, pn, 2);
    out.put(frames);
    out.position(out.position() + Wire.TAG_BYTES);
    return Arrays.copyOf(out.array(), out.position());
  }

  /** Whether the client's stream is sent and acknowledged, nothing more to say. */
  private static boolean done(Connection client, Stream stream) {
    return stream != null && client.isQuiescent();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      b.writeBytes(p);
    }
    return b.toByteArray();
  }
}
