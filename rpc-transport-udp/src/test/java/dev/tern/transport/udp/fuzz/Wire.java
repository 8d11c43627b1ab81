package dev.tern.transport.udp.fuzz;

import dev.tern.transport.udp.connection.TransportParameters;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.FrameType;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketType;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.packet.PlaintextProtection;
import dev.tern.transport.udp.packet.VarInt;
import dev.tern.transport.udp.packet.Versions;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Builds client packets for the fuzz targets and their seeds with the protocol's own encoders
 * (PacketWriter, TransportParameters, the frame encoders, PlaintextProtection), so a seed is valid
 * everywhere except in the field it is about.
 */
final class Wire {
  /** The client's initial destination connection ID in every seed. */
  static final ConnectionId CLIENT_DCID = ConnectionId.of(HexFormat.of().parseHex("c1d2c3d4c5d6c7d8"));
  /** The client's source connection ID in every seed. */
  static final ConnectionId CLIENT_SCID = ConnectionId.of(HexFormat.of().parseHex("5c1d5c1d5c1d5c1d"));
  /** RFC 9000 §14.1: a client's INITIAL datagram is padded to at least 1200 bytes. */
  static final int MIN_INITIAL_DATAGRAM = 1200;

  private Wire() {}

  /** The ClientHello a version-1 client sends, with the default parameters. */
  static TransportParameters clientHello() {
    TransportParameters p = new TransportParameters();
    p.messageType = TransportParameters.CLIENT_HELLO;
    p.initialSourceConnectionId = CLIENT_SCID;
    p.rpcVersions = new long[] {1};
    p.chosenVersion = Versions.V1;
    p.attemptedVersion = Versions.V1;
    return p;
  }

  /** {@code params} encoded as a handshake message. */
  static byte[] encode(TransportParameters params) {
    ByteBuffer b = ByteBuffer.allocate(TransportParameters.MAX_MESSAGE_BYTES);
    params.encode(b);
    return Arrays.copyOf(b.array(), b.position());
  }

  /**
   * A client INITIAL datagram with packet number {@code pn} whose payload is {@code frames}
   * followed by PADDING up to {@link #MIN_INITIAL_DATAGRAM}, sealed.
   */
  static byte[] initial(long pn, byte[] frames) {
    ByteBuffer out = ByteBuffer.allocate(Math.max(MIN_INITIAL_DATAGRAM, frames.length + 64));
    int lengthOffset = PacketWriter.writeInitialHeader(out, Versions.V1, CLIENT_DCID, CLIENT_SCID,
        pn, 2);
    out.put(frames);
    int pad = MIN_INITIAL_DATAGRAM - out.position() - PlaintextProtection.TRAILER_BYTES;
    if (pad > 0) {
      SimpleFrames.encodePadding(out, pad);
    }
    PacketWriter.patchLength(out, lengthOffset, out.position(), PlaintextProtection.TRAILER_BYTES);
    new PlaintextProtection().seal(out, 0, lengthOffset + 2 + 2, pn);
    return Arrays.copyOf(out.array(), out.position());
  }

  /** A client INITIAL carrying {@code message} as the handshake's one CRYPTO frame. */
  static byte[] initialWithHandshake(byte[] message) {
    ByteBuffer frames = ByteBuffer.allocate(message.length + 16);
    CryptoFrame.encodeHeader(frames, 0, message.length);
    frames.put(message);
    return initial(0, Arrays.copyOf(frames.array(), frames.position()));
  }

  /**
   * An ACK frame (RFC 9000 §19.3) of the one range {@code [largest - firstRange, largest]} with
   * the ACK Delay field written as given: {@code AckFrame.encode} takes a delay in nanoseconds and
   * cannot express the field's full varint range, which is the point here.
   */
  static byte[] ackWithRawDelay(long largest, long rawAckDelay, long firstRange) {
    ByteBuffer b = ByteBuffer.allocate(64);
    VarInt.write(b, FrameType.ACK);
    VarInt.write(b, largest);
    VarInt.write(b, rawAckDelay);
    VarInt.write(b, 0); // ACK Range Count
    VarInt.write(b, firstRange);
    return Arrays.copyOf(b.array(), b.position());
  }

  /**
   * Recomputes the protection trailer of every packet in {@code datagram} that parses, so that
   * mutated bytes get past the checksum and reach the frame decoders. Packets whose header does
   * not parse, or that are too short for a trailer, are left as they are.
   */
  static void reseal(ByteBuffer datagram, PacketHeader header, PlaintextProtection protection) {
    int offset = datagram.position();
    int limit = datagram.limit();
    int saved = datagram.position();
    while (offset < limit && header.parse(datagram, offset, ConnectionId.V1_LENGTH)
        && header.type != PacketType.VERSION_NEGOTIATION) {
      int trailer = header.packetEnd - PlaintextProtection.TRAILER_BYTES;
      if (header.packetEnd <= offset || trailer < header.payloadOffset()) {
        break;
      }
      datagram.position(trailer);
      protection.seal(datagram, header.packetStart, header.payloadOffset(), 0);
      offset = header.packetEnd;
    }
    datagram.position(saved);
  }
}
