package dev.tern.transport.udp.fuzz;

import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.PeerKeys;
import dev.tern.transport.udp.connection.TransportParameters;
import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.FrameType;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.packet.PacketType;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.packet.VarInt;
import dev.tern.transport.udp.packet.Versions;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Builds client packets for the fuzz targets and their seeds with the protocol's own encoders
 * (PacketWriter, TransportParameters, the frame encoders, a real Noise ClientHello), so a seed is
 * valid everywhere except in the field it is about.
 *
 * <p>Packets are built in <em>open form</em>: the header with its packet number unmasked, the
 * payload in plaintext, and a 16-byte slot for the AEAD tag. {@link #reseal} protects them as a
 * client would (AEAD and header protection, RFC 9001 §5.3, §5.4) with the keys the harness holds:
 * the Initial keys of the client's first Destination Connection ID, which anyone can derive (RFC
 * 9001 §5.2), and the
 * client's 1-RTT keys of the connection the packet names. So a fuzzer's mutations of the open
 * form still reach the frame decoders, as they did through version 1's checksum. A packet the
 * server opened is left in open form (opening decrypts in place), which is how the seeds of a
 * real client's conversation are recorded.
 */
final class Wire {
  /** The client's initial destination connection ID in every seed. */
  static final ConnectionId CLIENT_DCID = ConnectionId.of(HexFormat.of().parseHex("c1d2c3d4c5d6c7d8"));
  /** The client's source connection ID in every seed. */
  static final ConnectionId CLIENT_SCID = ConnectionId.of(HexFormat.of().parseHex("5c1d5c1d5c1d5c1d"));
  /** RFC 9000 §14.1: a client's INITIAL datagram is padded to at least 1200 bytes. */
  static final int MIN_INITIAL_DATAGRAM = 1200;

  private Wire() {}

  /** The AEAD tag slot at the end of each packet in open form. */
  static final int TAG_BYTES = AeadAlgorithm.TAG_BYTES;
  /** Seeds the ephemeral key of the ClientHello that {@link #initialWithHandshake} builds. */
  static final long CLIENT_HELLO_SEED = 11;

  /** The client's transport parameters, with the default parameters. */
  static TransportParameters clientHello() {
    TransportParameters p = new TransportParameters();
    p.messageType = TransportParameters.CLIENT_HELLO;
    p.initialSourceConnectionId = CLIENT_SCID;
    p.rpcVersions = new long[] {1};
    p.chosenVersion = Versions.V2;
    p.attemptedVersion = Versions.V2;
    return p;
  }

  /** {@code params} encoded as a handshake message. */
  static byte[] encode(TransportParameters params) {
    ByteBuffer b = ByteBuffer.allocate(TransportParameters.MAX_MESSAGE_BYTES);
    params.encode(b);
    return Arrays.copyOf(b.array(), b.position());
  }

  /**
   * A client INITIAL datagram in open form with packet number {@code pn} whose payload is
   * {@code frames} followed by PADDING up to {@link #MIN_INITIAL_DATAGRAM}, tag slot included.
   */
  static byte[] initial(long pn, byte[] frames) {
    ByteBuffer out = ByteBuffer.allocate(Math.max(MIN_INITIAL_DATAGRAM, frames.length + 64));
    int lengthOffset = PacketWriter.writeInitialHeader(out, Versions.V2, CLIENT_DCID, CLIENT_SCID,
        pn, 2);
    out.put(frames);
    int pad = MIN_INITIAL_DATAGRAM - out.position() - TAG_BYTES;
    if (pad > 0) {
      SimpleFrames.encodePadding(out, pad);
    }
    PacketWriter.patchLength(out, lengthOffset, out.position(), TAG_BYTES);
    out.position(out.position() + TAG_BYTES);
    return Arrays.copyOf(out.array(), out.position());
  }

  /**
   * A client INITIAL in open form carrying, as the handshake's one CRYPTO frame, a real Noise
   * ClientHello (IK to the harness server's key) whose encrypted payload is {@code params}: so
   * every input reaches the transport-parameter decoder and the server's use of the parameters.
   */
  static byte[] initialWithHandshake(byte[] params) {
    byte[] message = PeerKeys.clientHello(ConnectionConfig.defaults(), Versions.V2, CLIENT_DCID,
        CLIENT_SCID, params, CLIENT_HELLO_SEED);
    ByteBuffer frames = ByteBuffer.allocate(message.length + 16);
    CryptoFrame.encodeHeader(frames, 0, message.length);
    frames.put(message);
    return initial(0, Arrays.copyOf(frames.array(), frames.position()));
  }

  /** {@code datagram} (open form) protected: a copy with every INITIAL sealed. */
  static byte[] sealed(byte[] datagram) {
    byte[] copy = datagram.clone();
    reseal(ByteBuffer.wrap(copy), new PacketHeader(), null);
    return copy;
  }

  /** The client's Initial keys of {@link #CLIENT_DCID} (seal direction). */
  static PacketProtection initialKeys() {
    return PeerKeys.clientInitialKeys(ConnectionConfig.defaults(), CLIENT_DCID);
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
   * Protects every packet in {@code datagram} that parses, in place, as the client would: an
   * INITIAL with the client's Initial keys (of the {@code harness} connection it names, else of
   * the ID it names; without a harness, of {@link #CLIENT_DCID}), a 1-RTT packet with the
   * client's 1-RTT keys of the {@code harness} connection it names (left alone if there is none
   * yet). The packet number
   * in open form is taken as the full number (the seeds' numbers are small). Packets too short
   * for a tag and the header-protection sample are left as they are, and parsing stops there.
   */
  /** The packet number each key set last sealed (by identity; the harness's keys only). */
  private static final java.util.Map<PacketProtection, Long> LAST_SEALED_PN =
      java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

  static void reseal(ByteBuffer datagram, PacketHeader header, ServerHarness harness) {
    int offset = datagram.position();
    int limit = datagram.limit();
    int saved = datagram.position();
    PacketProtection wireInitial = harness == null ? initialKeys() : null;
    while (offset < limit && header.parse(datagram, offset, ConnectionId.V1_LENGTH)
        && header.type != PacketType.VERSION_NEGOTIATION) {
      if (header.packetEnd <= offset) {
        break;
      }
      PacketProtection keys = header.type == PacketType.INITIAL
          ? harness == null ? wireInitial : harness.clientInitialKeys(datagram, header)
          : harness == null ? null : harness.clientOneRttKeys(datagram, header);
      int tag = header.packetEnd - TAG_BYTES;
      if (keys != null) {
        if (tag < header.payloadOffset() + keys.minPayloadBytes(header.pnLength)) {
          break;
        }
        Long last = LAST_SEALED_PN.put(keys, header.truncatedPn);
        if (last != null && last == header.truncatedPn) {
          // The fuzzer may repeat a packet number (a duplicate is a legitimate attack input), but
          // the JDK's GCM, like BouncyCastle's, refuses to seal twice in a row with one nonce.
          // Sealing a scratch copy under another number first moves the cipher on.
          ByteBuffer scratch = ByteBuffer.wrap(Arrays.copyOfRange(datagram.array(),
              datagram.arrayOffset(), datagram.arrayOffset() + limit));
          scratch.position(tag);
          keys.seal(scratch, header.packetStart, header.payloadOffset(), header.truncatedPn + 1);
        }
        datagram.position(tag);
        keys.seal(datagram, header.packetStart, header.payloadOffset(), header.truncatedPn);
        keys.applyHeaderProtection(datagram, header.packetStart, header.pnOffset);
      }
      offset = header.packetEnd;
    }
    datagram.position(saved);
  }
}
