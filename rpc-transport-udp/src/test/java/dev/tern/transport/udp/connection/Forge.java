package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.packet.PlaintextProtection;
import dev.tern.transport.udp.packet.VarInt;
import dev.tern.transport.udp.packet.Versions;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.function.Consumer;

/**
 * Hand-built packets a hostile peer could send: well formed, with chosen field values, and
 * protected as the version requires: INITIALs with the Initial keys anyone can derive from the
 * client's first Destination Connection ID (RFC 9001 §5.2), a ClientHello's parameters inside a
 * real Noise message to the test server key ({@link TestKeys}), 1-RTT packets with the keys of a
 * real client connection (a peer that completed the handshake and then misbehaves).
 */
final class Forge {
  private Forge() {}

  /**
   * {@code config} with a seeded random source, so a test replays exactly, and the test server
   * key ({@link TestKeys}) pinned and held where it names none.
   */
  static ConnectionConfig seeded(ConnectionConfig config, long seed) {
    return TestKeys.withKeys(config).withDeterministicRandom(new java.util.Random(seed));
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
   * {@code hello} (in the encrypted version: a Noise ClientHello carrying it), padded, sealed.
   */
  static ByteBuffer initial(int version, ConnectionId dcid, ConnectionId scid, long pn,
      TransportParameters hello) {
    byte[] message = Handshake.encode(hello);
    if (Versions.isEncrypted(version)) {
      message = clientHello(version, dcid, scid, message);
    }
    byte[] m = message;
    return initial(version, dcid, scid, pn, b -> {
      CryptoFrame.encodeHeader(b, 0, m.length);
      b.put(m);
    });
  }

  /** A Noise ClientHello (IK to the test server key) carrying {@code params}. */
  static byte[] clientHello(int version, ConnectionId dcid, ConnectionId scid, byte[] params) {
    return PeerKeys.clientHello(ConnectionConfig.defaults(), version, dcid, scid, params,
        new SecureRandom().nextLong());
  }

  /** A 1,200-byte datagram holding one INITIAL whose frames {@code frames} writes, padded. */
  static ByteBuffer initial(int version, ConnectionId dcid, ConnectionId scid, long pn,
      Consumer<ByteBuffer> frames) {
    return initial(version, dcid, dcid, scid, pn, frames);
  }

  /**
   * A 1,200-byte datagram holding one INITIAL to {@code dcid}, sealed with the Initial keys of
   * the connection whose client's first Destination Connection ID was {@code originalDcid}.
   */
  static ByteBuffer initial(int version, ConnectionId originalDcid, ConnectionId dcid,
      ConnectionId scid, long pn, Consumer<ByteBuffer> frames) {
    return initial(version, originalDcid, dcid, scid, pn, 1200, frames);
  }

  /**
   * A datagram of {@code size} bytes holding one INITIAL to {@code dcid}, padded, sealed with
   * the Initial keys of the connection whose client's first Destination Connection ID was
   * {@code originalDcid}. Below 1200 bytes it is one no client sends (RFC 9000 §14.1).
   */
  static ByteBuffer initial(int version, ConnectionId originalDcid, ConnectionId dcid,
      ConnectionId scid, long pn, int size, Consumer<ByteBuffer> frames) {
    PacketProtection keys = Versions.isEncrypted(version)
        ? HandshakeCrypto.initialKeys(CryptoProviders.auto(), originalDcid, true)
        : new PlaintextProtection();
    ByteBuffer b = ByteBuffer.allocate(size);
    int lengthOffset = PacketWriter.writeInitialHeader(b, version, dcid, scid, pn, 4);
    int payload = b.position();
    frames.accept(b);
    SimpleFrames.encodePadding(b, b.remaining() - keys.overheadBytes());
    PacketWriter.patchLength(b, lengthOffset, b.position(), keys.overheadBytes());
    keys.seal(b, 0, payload, pn);
    keys.applyHeaderProtection(b, 0, payload - 4);
    b.flip();
    return b;
  }

  /**
   * A datagram holding one 1-RTT packet to {@code dcid} whose frames {@code frames} writes,
   * sealed with {@code sender}'s 1-RTT keys (it must have finished its handshake). Use packet
   * numbers the sender will not reach itself.
   */
  static ByteBuffer oneRtt(Connection sender, ConnectionId dcid, long pn,
      Consumer<ByteBuffer> frames) {
    PacketProtection keys = sender.appSpace.protection;
    ByteBuffer b = ByteBuffer.allocate(1500);
    PacketWriter.writeShortHeader(b, dcid, pn, 4);
    int payload = b.position();
    frames.accept(b);
    int min = payload + keys.minPayloadBytes(4) - b.position();
    if (min > 0) {
      SimpleFrames.encodePadding(b, min);
    }
    keys.seal(b, 0, payload, pn);
    keys.applyHeaderProtection(b, 0, payload - 4);
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
