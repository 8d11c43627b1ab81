package dev.tern.transport.udp.packet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Version 1's trailer is the CRC-32C of RFC 3720 (the JDK's {@code CRC32C}, which the tests run
 * on), so packets keep the bytes they had when it was computed with that class.
 */
class PlaintextProtectionTest {

  private static int checksum(byte[] b) {
    return PlaintextProtection.checksum(ByteBuffer.wrap(b), 0, b.length);
  }

  @Test
  void checksumsAreRfc3720sVectors() {
    // RFC 3720 Appendix B.4.
    byte[] zeros = new byte[32];
    byte[] ones = new byte[32];
    byte[] ascending = new byte[32];
    byte[] descending = new byte[32];
    for (int i = 0; i < 32; i++) {
      ones[i] = (byte) 0xff;
      ascending[i] = (byte) i;
      descending[i] = (byte) (31 - i);
    }
    assertThat(checksum(zeros)).isEqualTo(0x8a9136aa);
    assertThat(checksum(ones)).isEqualTo(0x62a8ab43);
    assertThat(checksum(ascending)).isEqualTo(0x46dd794e);
    assertThat(checksum(descending)).isEqualTo(0x113fdb5c);
    assertThat(checksum("123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
        .isEqualTo(0xe3069283); // the check value of CRC-32C
  }

  @Test
  void checksumsAreTheJdksOnAnyRangeOfAnyBufferAndMoveNothing() {
    Random r = new Random(3720);
    CRC32C jdk = new CRC32C();
    for (int i = 0; i < 2_000; i++) {
      byte[] b = new byte[1 + r.nextInt(1500)];
      r.nextBytes(b);
      int from = r.nextInt(b.length);
      int to = from + r.nextInt(b.length - from + 1);
      jdk.reset();
      jdk.update(b, from, to - from);
      ByteBuffer buf = (i & 1) == 0 ? ByteBuffer.wrap(b)
          : ByteBuffer.allocateDirect(b.length).put(b);
      buf.limit(b.length).position(b.length / 2);
      assertThat(PlaintextProtection.checksum(buf, from, to)).isEqualTo((int) jdk.getValue());
      assertThat(buf.position()).isEqualTo(b.length / 2);
      assertThat(buf.limit()).isEqualTo(b.length);
    }
  }

  @Test
  void sealAppendsTheChecksumAndOpenChecksIt() {
    PlaintextProtection p = new PlaintextProtection();
    byte[] packet = new byte[100];
    new Random(5).nextBytes(packet);
    ByteBuffer out = ByteBuffer.allocate(200);
    out.position(7);
    out.put(packet);
    assertThat(p.seal(out, 7, 20, 0)).isTrue();
    CRC32C jdk = new CRC32C();
    jdk.update(packet);
    assertThat(out.getInt(107)).isEqualTo((int) jdk.getValue());
    assertThat(p.open(out, 7, 20, 111, 0)).isEqualTo(107);
    out.put(50, (byte) (out.get(50) ^ 1));
    assertThat(p.open(out, 7, 20, 111, 0)).isEqualTo(-1);
  }
}
