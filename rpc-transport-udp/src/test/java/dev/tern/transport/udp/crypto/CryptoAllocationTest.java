package dev.tern.transport.udp.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bytes allocated per 1200-byte packet sealed, protected, unprotected and opened, per provider
 * and AEAD, measured with the thread's allocation counter after warm-up. The JCA takes a new
 * parameter object per message, so the JDK provider cannot reach zero; the bounds below are the
 * measured figures with headroom, so that a regression shows.
 */
class CryptoAllocationTest {
  private static final int PACKETS = 2_000;

  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getCurrentThreadAllocatedBytes();
  }

  /**
   * Bytes per packet sealed (index 0) and opened (index 1), over {@code PACKETS} packets after
   * as many for warm-up; the counter is read once around each loop.
   */
  static double[] bytesPerPacket(CryptoProvider provider, AeadAlgorithm aead) {
    OneRttPacketKeys client = new OneRttPacketKeys(provider, aead, KeyLabels.TERN_V1,
        PacketKeysTest.SERVER_SECRET, PacketKeysTest.CLIENT_SECRET);
    OneRttPacketKeys server = new OneRttPacketKeys(provider, aead, KeyLabels.TERN_V1,
        PacketKeysTest.CLIENT_SECRET, PacketKeysTest.SERVER_SECRET);
    ByteBuffer[] packets = new ByteBuffer[PACKETS];
    int[] pnOffsets = new int[PACKETS];
    for (int i = 0; i < PACKETS; i++) {
      packets[i] = ByteBuffer.allocate(1500);
    }
    long pn = 0;
    double[] result = new double[2];
    for (int round = 0; round < 3; round++) { // rounds 0 and 1 warm up
      for (int i = 0; i < PACKETS; i++) {
        ByteBuffer b = packets[i].clear();
        pnOffsets[i] = PacketKeysTest.writeShortHeader(b, 4, pn + i);
      }
      long t0 = allocatedBytes();
      for (int i = 0; i < PACKETS; i++) {
        ByteBuffer b = packets[i];
        b.position(1200 - AeadAlgorithm.TAG_BYTES);
        client.seal(b, 0, pnOffsets[i] + 4, pn + i);
        client.applyHeaderProtection(b, 0, pnOffsets[i]);
      }
      long t1 = allocatedBytes();
      int failed = 0;
      for (int i = 0; i < PACKETS; i++) {
        ByteBuffer b = packets[i];
        int end = b.position();
        server.removeHeaderProtection(b, 0, pnOffsets[i], end);
        if (server.open(b, 0, pnOffsets[i] + 4, end, pn + i) < 0) {
          failed++;
        }
      }
      long t2 = allocatedBytes();
      assertThat(failed).isZero();
      result[0] = (double) (t1 - t0) / PACKETS;
      result[1] = (double) (t2 - t1) / PACKETS;
      pn += PACKETS;
    }
    return result;
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#bothWithAeads")
  void bytesAllocatedPerPacket(CryptoProvider provider, AeadAlgorithm aead) {
    double[] perPacket = bytesPerPacket(provider, aead);
    double seal = perPacket[0];
    double open = perPacket[1];
    System.out.printf("crypto allocation: %s %s: seal+protect %.0f B/packet,"
        + " unprotect+open %.0f B/packet%n", provider.name(), aead, seal, open);
    // Measured on JDK 17 (docs/udp-crypto.md §8): bc 380-630 B; jdk AES-GCM about 1.15 KiB each
    // way, jdk ChaCha20-Poly1305 about 1.5 KiB to seal and 5.8 KiB to open (the JCA's decryptor
    // buffers the ciphertext it authenticates).
    if (provider.name().equals(BcCryptoProvider.NAME)) {
      assertThat(seal).isLessThan(1024);
      assertThat(open).isLessThan(1024);
    } else if (aead.isAes()) {
      assertThat(seal).isLessThan(2048);
      assertThat(open).isLessThan(2048);
    } else {
      assertThat(seal).isLessThan(3072);
      assertThat(open).isLessThan(8192);
    }
  }
}
