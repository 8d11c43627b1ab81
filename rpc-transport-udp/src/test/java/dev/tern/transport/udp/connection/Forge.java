package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.packet.PlaintextProtection;
import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/** Hand-built packets a hostile peer could send: well formed, with chosen field values. */
final class Forge {
  private Forge() {}

  /** {@code config} with a seeded random source, so a test replays exactly. */
  static ConnectionConfig seeded(ConnectionConfig config, long seed) {
    return config.withDeterministicRandom(new java.util.Random(seed));
  }

  /** A ClientHello's parameters as a client of {@code version} would send them. */
  static TransportParameters clientHello(ConnectionId scid, int version) {
    TransportParameters p = new TransportParameters();
    p.messageType = TransportParameters.CLIENT_HELLO;
    p.initialSourceConnectionId = scid;
    p.chosenVersion = version;
    p.attemptedVersion = version;
    p.rpcVersions = new long[] {1};
    return p;
  }

  /**
   * A 1,200-byte datagram holding one INITIAL (packet number {@code pn}) with a CRYPTO frame of
   * {@code hello}, padded, sealed.
   */
  static ByteBuffer initial(int version, ConnectionId dcid, ConnectionId scid, long pn,
      TransportParameters hello) {
    return initial(version, dcid, scid, pn, b -> {
      ByteBuffer m = ByteBuffer.allocate(TransportParameters.MAX_MESSAGE_BYTES);
      hello.encode(m);
      m.flip();
      CryptoFrame.encodeHeader(b, 0, m.remaining());
      b.put(m);
    });
  }

  /** A 1,200-byte datagram holding one INITIAL whose frames {@code frames} writes, padded. */
  static ByteBuffer initial(int version, ConnectionId dcid, ConnectionId scid, long pn,
      Consumer<ByteBuffer> frames) {
    ByteBuffer b = ByteBuffer.allocate(1200);
    int lengthOffset = PacketWriter.writeInitialHeader(b, version, dcid, scid, pn, 4);
    int payload = b.position();
    frames.accept(b);
    SimpleFrames.encodePadding(b, b.remaining() - PlaintextProtection.TRAILER_BYTES);
    PacketWriter.patchLength(b, lengthOffset, b.position(), PlaintextProtection.TRAILER_BYTES);
    new PlaintextProtection().seal(b, 0, payload, pn);
    b.flip();
    return b;
  }

  /** A datagram holding one 1-RTT packet to {@code dcid} whose frames {@code frames} writes. */
  static ByteBuffer oneRtt(ConnectionId dcid, long pn, Consumer<ByteBuffer> frames) {
    ByteBuffer b = ByteBuffer.allocate(1500);
    PacketWriter.writeShortHeader(b, dcid, pn, 4);
    int payload = b.position();
    frames.accept(b);
    new PlaintextProtection().seal(b, 0, payload, pn);
    b.flip();
    return b;
  }

  /** An ACK frame (RFC 9000 §19.3) of one range, with a raw ACK Delay field. */
  static void ack(ByteBuffer b, long largest, long firstRange, long ackDelayField) {
    VarInt.write(b, 0x02);
    VarInt.write(b, largest);
    VarInt.write(b, ackDelayField);
    VarInt.write(b, 0);
    VarInt.write(b, firstRange);
  }

  /**
   * Passes datagrams between two connections, at {@code nowNs}, until neither has one to send.
   *
   * @param wire the buffer each datagram crosses in (borrowed)
   * @return the largest datagram the client sent, in bytes
   */
  static int exchange(Connection client, Connection server, ByteBuffer wire, long nowNs) {
    int largest = 0;
    boolean any = true;
    while (any) {
      any = false;
      wire.clear();
      int n = client.pollDatagram(wire, nowNs);
      if (n > 0) {
        largest = Math.max(largest, n);
        wire.flip();
        server.onDatagram(wire, nowNs, 0);
        any = true;
      }
      wire.clear();
      if (server.pollDatagram(wire, nowNs) > 0) {
        wire.flip();
        client.onDatagram(wire, nowNs, 0);
        any = true;
      }
    }
    return largest;
  }
}
