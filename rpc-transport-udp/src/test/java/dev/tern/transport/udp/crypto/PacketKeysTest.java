package dev.tern.transport.udp.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Sealing, protecting, unprotecting and opening packets with Tern's labels. */
class PacketKeysTest {
  static final byte[] CLIENT_SECRET = TestProviders.hex(
      "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
  static final byte[] SERVER_SECRET = TestProviders.hex(
      "a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0");

  /** A long header like docs/protocol.md §2.1's, pn length {@code pnLen}; returns pn offset. */
  static int writeLongHeader(ByteBuffer out, int pnLen, long pn) {
    out.put((byte) (0xc0 | (pnLen - 1))).putInt(0x544e0001);
    out.put((byte) 8).putLong(0x1122334455667788L).put((byte) 8).putLong(0x0102030405060708L);
    out.put((byte) 0).putShort((short) 0x4100); // token length, Length (not checked here)
    int pnOffset = out.position();
    for (int i = pnLen - 1; i >= 0; i--) {
      out.put((byte) (pn >>> (8 * i)));
    }
    return pnOffset;
  }

  /** A short header with an 8-byte DCID; returns pn offset. */
  static int writeShortHeader(ByteBuffer out, int pnLen, long pn) {
    out.put((byte) (0x40 | (pnLen - 1))).putLong(0x0102030405060708L);
    int pnOffset = out.position();
    for (int i = pnLen - 1; i >= 0; i--) {
      out.put((byte) (pn >>> (8 * i)));
    }
    return pnOffset;
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void roundTripsEveryPacketNumberLengthInBothHeaderForms(CryptoProvider provider,
      AeadAlgorithm aead) {
    PacketKeys client = EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1, SERVER_SECRET,
        CLIENT_SECRET);
    PacketKeys server = EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1, CLIENT_SECRET,
        SERVER_SECRET);
    Random random = new Random(7);
    for (boolean longHeader : new boolean[] {true, false}) {
      for (int pnLen = 1; pnLen <= 4; pnLen++) {
        long pn = 0x3a5b7c9dL & ((1L << (8 * pnLen)) - 1);
        byte[] payload = new byte[PacketKeys.sampleMinPayloadBytes(pnLen) + random.nextInt(40)];
        random.nextBytes(payload);
        ByteBuffer out = ByteBuffer.allocate(200);
        out.position(3); // the packet need not start at 0 (coalesced packets)
        int pnOffset = longHeader ? writeLongHeader(out, pnLen, pn)
            : writeShortHeader(out, pnLen, pn);
        byte[] header = Arrays.copyOfRange(out.array(), 3, pnOffset + pnLen);
        out.put(payload);
        assertThat(client.seal(out, 3, pnOffset + pnLen, pn)).isTrue();
        client.applyHeaderProtection(out, 3, pnOffset);
        int end = out.position();
        assertThat(end).isEqualTo(pnOffset + pnLen + payload.length + 16);

        assertThat(server.removeHeaderProtection(out, 3, pnOffset, end)).isEqualTo(pnLen);
        assertThat(Arrays.copyOfRange(out.array(), 3, pnOffset + pnLen)).isEqualTo(header);
        assertThat(server.open(out, 3, pnOffset + pnLen, end, pn))
            .isEqualTo(pnOffset + pnLen + payload.length);
        assertThat(Arrays.copyOfRange(out.array(), pnOffset + pnLen,
            pnOffset + pnLen + payload.length)).isEqualTo(payload);
      }
    }
    assertThat(server.failedOpens()).isZero();
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void aFlippedBitAnywhereMakesThePacketFailToOpen(CryptoProvider provider, AeadAlgorithm aead) {
    PacketKeys client = EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1, SERVER_SECRET,
        CLIENT_SECRET);
    PacketKeys server = EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1, CLIENT_SECRET,
        SERVER_SECRET);
    ByteBuffer out = ByteBuffer.allocate(100);
    int pnOffset = writeShortHeader(out, 2, 0x1234);
    out.put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    client.seal(out, 0, pnOffset + 2, 0x1234);
    client.applyHeaderProtection(out, 0, pnOffset);
    byte[] sealed = Arrays.copyOf(out.array(), out.position());
    int opened = 0;
    for (int bit = 0; bit < sealed.length * 8; bit++) {
      if (bit == 1) {
        continue; // the fixed bit: the connection drops such packets before any keys are used
      }
      byte[] copy = sealed.clone();
      copy[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
      ByteBuffer in = ByteBuffer.wrap(copy);
      int pnLen = server.removeHeaderProtection(in, 0, pnOffset, copy.length);
      if (pnLen < 0) {
        continue;
      }
      long pn = 0;
      for (int i = 0; i < pnLen; i++) {
        pn = pn << 8 | (copy[pnOffset + i] & 0xff);
      }
      if (server.open(in, 0, pnOffset + pnLen, copy.length, pn) >= 0) {
        opened++;
      }
    }
    assertThat(opened).isZero();
    assertThat(server.failedOpens()).isEqualTo(sealed.length * 8L - 1);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void aPacketTooShortToSampleIsRejectedUntouched(CryptoProvider provider, AeadAlgorithm aead) {
    PacketKeys server = EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1, CLIENT_SECRET,
        SERVER_SECRET);
    byte[] packet = new byte[9 + 4 + 15]; // one byte short of the sample
    Arrays.fill(packet, (byte) 0x5a);
    byte[] before = packet.clone();
    assertThat(server.removeHeaderProtection(ByteBuffer.wrap(packet), 0, 9, packet.length))
        .isEqualTo(-1);
    assertThat(packet).isEqualTo(before);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void aDuplicatedPacketOpensTwice(CryptoProvider provider, AeadAlgorithm aead) {
    // The JCA refuses to re-initialise some ciphers with the previous key and nonce for
    // encryption; receiving the same packet twice must still work (duplicates are dropped by
    // the connection's packet-number tracking, not by a cipher exception).
    PacketKeys client = EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1, SERVER_SECRET,
        CLIENT_SECRET);
    PacketKeys server = EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1, CLIENT_SECRET,
        SERVER_SECRET);
    ByteBuffer out = ByteBuffer.allocate(100);
    int pnOffset = writeShortHeader(out, 1, 9);
    out.put(new byte[] {9, 9, 9, 9});
    client.seal(out, 0, pnOffset + 1, 9);
    client.applyHeaderProtection(out, 0, pnOffset);
    byte[] sealed = Arrays.copyOf(out.array(), out.position());
    for (int i = 0; i < 2; i++) {
      ByteBuffer in = ByteBuffer.wrap(sealed.clone());
      assertThat(server.removeHeaderProtection(in, 0, pnOffset, sealed.length)).isEqualTo(1);
      assertThat(server.open(in, 0, pnOffset + 1, sealed.length, 9)).isEqualTo(pnOffset + 5);
    }
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void theChaCha20MaskWorksAtTheLastBlockCounter(CryptoProvider provider) {
    // RFC 9001 §5.4.4 takes the counter from the sample, so any 32-bit value occurs.
    HeaderProtector a = new HeaderProtector(provider, AeadAlgorithm.CHACHA20_POLY1305,
        CLIENT_SECRET);
    HeaderProtector b = new HeaderProtector(CryptoProviders.byName(
        provider.name().equals("jdk") ? "bc" : "jdk"), AeadAlgorithm.CHACHA20_POLY1305,
        CLIENT_SECRET);
    byte[] buf = new byte[20];
    Arrays.fill(buf, 4, 8, (byte) 0xff);
    buf[10] = 42;
    assertThat(a.maskFor(buf, 0)).isEqualTo(b.maskFor(buf, 0));
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void terns1RttKeysDifferFromQuicsForTheSameSecret(CryptoProvider provider) {
    Hkdf hkdf = new Hkdf(provider);
    byte[] none = new byte[0];
    assertThat(hkdf.expandLabel(CLIENT_SECRET, KeyLabels.TERN_V1.key(), none, 16))
        .isNotEqualTo(hkdf.expandLabel(CLIENT_SECRET, KeyLabels.QUIC_V1.key(), none, 16));
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void directBuffersAreRefusedWithAClearError(CryptoProvider provider) {
    PacketKeys keys = EpochPacketKeys.create(provider, AeadAlgorithm.AES_128_GCM,
        KeyLabels.TERN_V1, CLIENT_SECRET, SERVER_SECRET);
    assertThatThrownBy(() -> keys.open(ByteBuffer.allocateDirect(64), 0, 10, 64, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("packet must be a writable heap ByteBuffer");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void aSendOnlyEpochRefusesToOpen(CryptoProvider provider) {
    PacketKeys earlyData = EpochPacketKeys.create(provider, AeadAlgorithm.AES_128_GCM,
        KeyLabels.TERN_V1, null, CLIENT_SECRET);
    assertThatThrownBy(() -> earlyData.open(ByteBuffer.allocate(64), 0, 10, 64, 0))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no read keys");
  }
}
