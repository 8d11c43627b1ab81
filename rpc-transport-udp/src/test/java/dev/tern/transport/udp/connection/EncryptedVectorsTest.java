package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.crypto.KeyLabels;
import dev.tern.transport.udp.crypto.OneRttPacketKeys;
import dev.tern.transport.udp.frame.ProtocolVectors;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.handshake.HandshakeSecrets;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.stream.Stream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The golden vectors of the encrypted version (docs/protocol.md §9.6): single protected
 * packets with fixed secrets, the negative vectors a receiver must drop, and a whole exchange
 * with fixed keys (docs/udp-v2-transcript.txt). Both providers produce the same bytes. Run with
 * {@code -Dtern.writeVectors=true} to rewrite the transcript (then review and commit it).
 */
@org.junit.jupiter.api.Timeout(60)
class EncryptedVectorsTest {
  private static final HexFormat HEX = HexFormat.of();
  static final Path TRANSCRIPT = Path.of("..", "docs", "udp-v2-transcript.txt");

  private static byte[] field(String vector, String key) {
    for (String token : ProtocolVectors.lines(vector).get(0).split("\\s+")) {
      if (token.startsWith(key + "=")) {
        return HEX.parseHex(token.substring(key.length() + 1));
      }
    }
    throw new AssertionError(vector + " has no " + key);
  }

  private static byte[] after(String vector) {
    String line = ProtocolVectors.lines(vector).get(0);
    return ProtocolVectors.leadingHex(line.substring(line.indexOf("->") + 2));
  }

  /** A short-header packet to {@code dcid} with {@code payload}, protected with 1-RTT keys. */
  private static byte[] shortPacket(PacketProtection keys, byte[] dcid, long pn,
      byte[] payload) {
    ByteBuffer b = ByteBuffer.allocate(256);
    PacketWriter.writeShortHeader(b, ConnectionId.of(dcid), pn, 1);
    int start = b.position();
    b.put(payload);
    int pad = start + keys.minPayloadBytes(1) - b.position();
    if (pad > 0) {
      SimpleFrames.encodePadding(b, pad);
    }
    keys.seal(b, 0, start, pn);
    keys.applyHeaderProtection(b, 0, start - 1);
    return Arrays.copyOf(b.array(), b.position());
  }

  private static OneRttPacketKeys keys(CryptoProvider p, byte[] secret) {
    return new OneRttPacketKeys(p, AeadAlgorithm.AES_256_GCM, KeyLabels.TERN_V1, secret, secret);
  }

  /** Opens {@code packet} (short header, 8-byte DCID) and returns its payload, or null. */
  private static byte[] open(PacketProtection keys, byte[] packet) {
    ByteBuffer b = ByteBuffer.wrap(packet.clone());
    PacketHeader h = new PacketHeader();
    if (!h.parse(b, 0, ConnectionId.V1_LENGTH)) {
      return null;
    }
    int pnLength = keys.removeHeaderProtection(b, 0, h.pnOffset, h.packetEnd);
    if (pnLength < 0) {
      return null;
    }
    h.readPacketNumber(b, pnLength);
    int end = keys.open(b, 0, h.payloadOffset(), h.packetEnd, h.truncatedPn);
    return end < 0 ? null : Arrays.copyOfRange(b.array(), h.payloadOffset(), end);
  }

  @ParameterizedTest
  @ValueSource(strings = {"jdk", "bc"})
  void aProtectedShortHeaderPacketIsTheDocumentsBytes(String provider) {
    CryptoProvider p = CryptoProviders.byName(provider);
    String v = "v2-packet-short";
    byte[] secret = field(v, "secret");
    byte[] packet = shortPacket(keys(p, secret), field(v, "dcid"), 5, field(v, "payload"));
    assertThat(HEX.formatHex(packet)).isEqualTo(HEX.formatHex(after(v)));
    assertThat(open(keys(p, secret), packet)).startsWith(field(v, "payload"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"jdk", "bc"})
  void theNegativeVectorsDoNotOpen(String provider) {
    CryptoProvider p = CryptoProviders.byName(provider);
    byte[] secret = field("v2-packet-short", "secret");
    for (String v : new String[] {"v2-negative-tag", "v2-negative-header", "v2-negative-key",
        "v2-negative-short"}) {
      byte[] packet = ProtocolVectors.leadingHex(ProtocolVectors.lines(v).get(0));
      assertThat(open(keys(p, secret), packet)).as(v).isNull();
    }
    // And the valid packet the negative ones derive from does open.
    assertThat(open(keys(p, secret), after("v2-packet-short"))).isNotNull();
  }

  @Test
  void theNegativeVectorsAreWhatTheDocumentSaysTheyAre() {
    byte[] valid = after("v2-packet-short");
    byte[] tag = valid.clone();
    tag[tag.length - 1] ^= 0x01;
    assertThat(ProtocolVectors.hex("v2-negative-tag")).isEqualTo(tag);
    byte[] header = valid.clone();
    header[1] ^= 0x01; // a DCID byte: associated data
    assertThat(ProtocolVectors.hex("v2-negative-header")).isEqualTo(header);
    byte[] other = field("v2-packet-short", "secret");
    other[0] ^= 0x01;
    assertThat(ProtocolVectors.hex("v2-negative-key")).isEqualTo(shortPacket(
        keys(CryptoProviders.auto(), other), field("v2-packet-short", "dcid"), 5,
        field("v2-packet-short", "payload")));
    assertThat(ProtocolVectors.hex("v2-negative-short"))
        .isEqualTo(Arrays.copyOf(valid, valid.length - 1));
  }

  /** The transcript: a handshake, one call and a close, with fixed keys and fixed times. */
  @Test
  void aWholeExchangeIsTheTranscriptsBytes() throws IOException {
    String transcript = transcript();
    if (Boolean.getBoolean("tern.writeVectors")) {
      Files.writeString(TRANSCRIPT, transcript);
    }
    assertThat(TRANSCRIPT).as("regenerate with -Dtern.writeVectors=true").exists();
    assertThat(Files.readString(TRANSCRIPT)).isEqualTo(transcript);
  }

  private static String transcript() {
    StringBuilder out = new StringBuilder();
    out.append("# Tern UDP version 2 (0x544e0002): a whole exchange with fixed keys.\n")
        .append("# Checked byte for byte by EncryptedVectorsTest; docs/protocol.md §9.6.\n")
        .append("# Cipher AES-256-GCM. The client's ephemeral and static keys and the server's\n")
        .append("# ephemeral key come from seeded generators; the secrets below open every\n")
        .append("# packet. Each datagram: direction, virtual time in ms, length, then hex.\n");
    // No first-flight copies and no PMTU probes: only the exchange itself.
    ConnectionConfig base = ConnectionConfig.builder().handshakeCipher(AeadAlgorithm.AES_256_GCM)
        .handshakeCopy(false).maxProbedDatagramBytes(1350).build();
    Connection client = Connection.client(Forge.seeded(base, 1), new ConnectionListener() {});
    byte[][] response = new byte[1][];
    Connection[] server = new Connection[1];
    ServerDemux demux = new ServerDemux(Forge.seeded(base, 2), c -> new ConnectionListener() {
      @Override
      public void onReadable(Stream s) {
        ByteBuffer got = ByteBuffer.allocate(64);
        server[0].read(s, got);
        if (s.receive().isFinished()) {
          server[0].write(s, ByteBuffer.wrap("pong".getBytes(StandardCharsets.US_ASCII)));
          server[0].finish(s);
        }
      }
    }, 1);
    out.append("server_static_private ").append(HEX.formatHex(TestKeys.SERVER_PRIVATE_KEY))
        .append(" (key id ").append(TestKeys.KEY_ID).append(")\n")
        .append("client_first_dcid ").append(client.originalDcid).append('\n');
    StringBuilder datagrams = new StringBuilder();
    ByteBuffer wire = ByteBuffer.allocate(2048);
    Stream stream = null;
    long now = 0;
    for (int step = 0; step < 12; step++, now += 10_000_000L) {
      if (stream == null && client.state() == ConnectionState.ESTABLISHED) {
        stream = client.openStream();
        client.write(stream, ByteBuffer.wrap("ping".getBytes(StandardCharsets.US_ASCII)));
        client.finish(stream);
      }
      if (step == 10) {
        client.close(0, "done");
      }
      boolean any = true;
      while (any) {
        any = false;
        wire.clear();
        if (client.pollDatagram(wire, now) > 0) {
          wire.flip();
          line(datagrams, "c->s", now, wire);
          if (server[0] == null) {
            server[0] = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
          } else {
            server[0].onDatagram(wire, now, 0);
          }
          any = true;
        }
        wire.clear();
        if (server[0] != null && server[0].pollDatagram(wire, now) > 0) {
          wire.flip();
          line(datagrams, "s->c", now, wire);
          client.onDatagram(wire, now, 0);
          any = true;
        }
      }
    }
    HandshakeSecrets s = client.keys.crypto.secrets();
    out.append("handshake_hash ").append(HEX.formatHex(s.handshakeHash())).append('\n')
        .append("c_ap ").append(HEX.formatHex(s.client1RttSecret())).append('\n')
        .append("s_ap ").append(HEX.formatHex(s.server1RttSecret())).append('\n');
    return out.append(datagrams).toString();
  }

  private static void line(StringBuilder out, String direction, long nowNs, ByteBuffer d) {
    byte[] b = new byte[d.remaining()];
    d.duplicate().get(b);
    out.append(direction).append(' ').append(nowNs / 1_000_000L).append(' ').append(b.length)
        .append(' ').append(HEX.formatHex(b)).append('\n');
  }

  @Test
  void theTranscriptIsDeterministic() {
    assertThat(transcript()).isEqualTo(transcript());
  }
}
