package dev.tern.transport.udp.crypto;

import static dev.tern.transport.udp.crypto.PacketKeysTest.CLIENT_SECRET;
import static dev.tern.transport.udp.crypto.PacketKeysTest.SERVER_SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.packet.PacketProtection;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** 1-RTT key update (RFC 9001 §6) between a client's and a server's keys. */
class KeyUpdateTest {

  /** A sealed, protected short-header packet with a 4-byte packet number. */
  private static byte[] packet(OneRttPacketKeys keys, long pn, byte fill) {
    ByteBuffer out = ByteBuffer.allocate(64);
    int pnOffset = PacketKeysTest.writeShortHeader(out, 4, pn);
    byte[] payload = new byte[8];
    Arrays.fill(payload, fill);
    out.put(payload);
    if (!keys.seal(out, 0, pnOffset + 4, pn)) {
      return null;
    }
    keys.applyHeaderProtection(out, 0, pnOffset);
    return Arrays.copyOf(out.array(), out.position());
  }

  /** Opens a packet made by {@link #packet}: the payload's fill byte, or -1 if not authentic. */
  private static int open(OneRttPacketKeys keys, byte[] packet) {
    ByteBuffer in = ByteBuffer.wrap(packet.clone());
    if (keys.removeHeaderProtection(in, 0, 9, packet.length) != 4) {
      return -1;
    }
    long pn = in.getInt(9) & 0xffffffffL;
    return keys.open(in, 0, 13, packet.length, pn) < 0 ? -1 : in.get(13);
  }

  private static int phaseOf(OneRttPacketKeys receiver, byte[] packet) {
    byte[] copy = packet.clone();
    receiver.removeHeaderProtection(ByteBuffer.wrap(copy), 0, 9, copy.length);
    return (copy[0] >> 2) & 1;
  }

  private static OneRttPacketKeys client(CryptoProvider p, AeadAlgorithm a, long after,
      long limit) {
    return new OneRttPacketKeys(p, a, KeyLabels.TERN_V1, SERVER_SECRET, CLIENT_SECRET, after,
        limit);
  }

  private static OneRttPacketKeys server(CryptoProvider p, AeadAlgorithm a, long after,
      long limit) {
    return new OneRttPacketKeys(p, a, KeyLabels.TERN_V1, CLIENT_SECRET, SERVER_SECRET, after,
        limit);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void thePeerFollowsAnUpdateAndAnswersInTheNewPhase(CryptoProvider p, AeadAlgorithm a) {
    OneRttPacketKeys client = client(p, a, 1000, 2000);
    OneRttPacketKeys server = server(p, a, 1000, 2000);
    assertThat(client.initiateKeyUpdate()).as("not before the handshake is confirmed").isFalse();
    client.onHandshakeConfirmed();
    byte[] c0 = packet(client, 0, (byte) 1);
    assertThat(client.initiateKeyUpdate()).as("not before a packet of this phase is acked")
        .isFalse();
    assertThat(open(server, c0)).isEqualTo(1);
    client.onPacketAcknowledged(0);
    assertThat(client.initiateKeyUpdate()).isTrue();
    assertThat(client.initiateKeyUpdate()).as("one update at a time").isFalse();

    byte[] c1 = packet(client, 1, (byte) 2);
    assertThat(phaseOf(server, c1)).isEqualTo(1);
    assertThat(open(server, c1)).isEqualTo(2);
    assertThat(server.keyPhase()).as("RFC 9001 §6.2: the server answers in the new phase")
        .isEqualTo(1);
    byte[] s0 = packet(server, 0, (byte) 3);
    assertThat(phaseOf(client, s0)).isEqualTo(1);
    assertThat(open(client, s0)).isEqualTo(3);
    assertThat(client.keyUpdates()).isEqualTo(1);
    assertThat(server.keyUpdates()).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void aReorderedPacketOfThePreviousPhaseOpensUntilTheOldKeysAreDiscarded(CryptoProvider p,
      AeadAlgorithm a) {
    OneRttPacketKeys client = client(p, a, 1000, 2000);
    OneRttPacketKeys server = server(p, a, 1000, 2000);
    client.onHandshakeConfirmed();
    byte[] c0 = packet(client, 0, (byte) 1);
    byte[] c1 = packet(client, 1, (byte) 2); // delayed in the network
    assertThat(open(server, c0)).isEqualTo(1);
    client.onPacketAcknowledged(0);
    client.initiateKeyUpdate();
    byte[] c2 = packet(client, 2, (byte) 3);
    byte[] c3 = packet(client, 3, (byte) 4);
    assertThat(server.readGeneration()).isZero();
    assertThat(open(server, c2)).isEqualTo(3);
    assertThat(server.readGeneration()).as("a packet of the new phase opened").isEqualTo(1);
    assertThat(server.hasPreviousReadKeys()).isTrue();
    assertThat(open(server, c1)).as("old phase, lower packet number").isEqualTo(2);
    server.discardPreviousReadKeys();
    assertThat(server.hasPreviousReadKeys()).isFalse();
    assertThat(openRaw(server, c1)).as("after the old keys are gone")
        .isEqualTo(PacketProtection.KEYS_DISCARDED);
    assertThat(open(server, c3)).isEqualTo(4);
    assertThat(server.failedOpens()).as("a late packet is not a forgery").isZero();
  }

  /** What {@link OneRttPacketKeys#open} returns for a packet made by {@link #packet}. */
  private static int openRaw(OneRttPacketKeys keys, byte[] packet) {
    ByteBuffer in = ByteBuffer.wrap(packet.clone());
    keys.removeHeaderProtection(in, 0, 9, packet.length);
    return keys.open(in, 0, 13, packet.length, in.getInt(9) & 0xffffffffL);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void theIntegrityLimitIsTheAeadsOwn(CryptoProvider p, AeadAlgorithm a) {
    OneRttPacketKeys oneRtt = server(p, a, 1000, 2000);
    EpochPacketKeys epoch = EpochPacketKeys.create(p, a, KeyLabels.TERN_V1, CLIENT_SECRET,
        SERVER_SECRET);
    long expected = a == AeadAlgorithm.CHACHA20_POLY1305 ? 1L << 36 : 1L << 52;
    assertThat(oneRtt.integrityLimitPackets()).isEqualTo(expected);
    assertThat(epoch.integrityLimitPackets()).isEqualTo(expected);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void aForgedPacketInTheOtherPhaseDoesNotUpdateKeys(CryptoProvider p, AeadAlgorithm a) {
    OneRttPacketKeys client = client(p, a, 1000, 2000);
    OneRttPacketKeys server = server(p, a, 1000, 2000);
    client.onHandshakeConfirmed();
    assertThat(open(server, packet(client, 0, (byte) 1))).isEqualTo(1);
    client.onPacketAcknowledged(0);
    client.initiateKeyUpdate();
    byte[] c1 = packet(client, 1, (byte) 2);
    c1[c1.length - 1] ^= 1; // break the tag
    assertThat(open(server, c1)).isEqualTo(-1);
    assertThat(server.keyPhase()).as("RFC 9001 §6.4: no update on a packet that fails")
        .isZero();
    assertThat(server.keyUpdates()).isZero();
    assertThat(server.failedOpens()).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void keysUpdateThemselvesBeforeTheConfidentialityLimit(CryptoProvider p, AeadAlgorithm a) {
    OneRttPacketKeys client = client(p, a, 3, 5);
    OneRttPacketKeys server = server(p, a, 1000, 2000);
    client.onHandshakeConfirmed();
    int[] phases = new int[12];
    for (int pn = 0; pn < 12; pn++) {
      byte[] c = packet(client, pn, (byte) pn);
      phases[pn] = phaseOf(server, c);
      assertThat(open(server, c)).isEqualTo(pn);
      // The server's acknowledgement travels in a packet of its own current phase.
      assertThat(open(client, packet(server, pn, (byte) 100))).isEqualTo(100);
      client.onPacketAcknowledged(pn);
    }
    assertThat(phases).containsExactly(0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1);
    assertThat(client.keyUpdates()).isEqualTo(3);
    assertThat(server.keyUpdates()).isEqualTo(3);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void noSecondUpdateBeforeThePeerHasAnsweredTheFirst(CryptoProvider p, AeadAlgorithm a) {
    OneRttPacketKeys client = client(p, a, 1000, 2000);
    client.onHandshakeConfirmed();
    packet(client, 0, (byte) 0);
    client.onPacketAcknowledged(0);
    assertThat(client.initiateKeyUpdate()).isTrue();
    packet(client, 1, (byte) 0);
    client.onPacketAcknowledged(1); // acknowledged, but nothing arrived in the new phase yet
    assertThat(client.canInitiateKeyUpdate()).isFalse();
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void sealingStopsAtTheLimitWhenNoUpdateIsAllowed(CryptoProvider p, AeadAlgorithm a) {
    OneRttPacketKeys client = client(p, a, 3, 5);
    client.onHandshakeConfirmed(); // but nothing is ever acknowledged
    for (int pn = 0; pn < 5; pn++) {
      assertThat(packet(client, pn, (byte) 0)).isNotNull();
    }
    assertThat(packet(client, 5, (byte) 0)).as("RFC 9001 §6.6: AEAD_LIMIT_REACHED").isNull();
    assertThat(client.keyPhase()).isZero();
  }
}
