package dev.tern.netlab.emu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class HeadersTest {
  /** An IPv4 TCP SYN 198.18.1.1:40000 -> 198.19.1.1:443, 20-byte IP and 40-byte TCP header. */
  private static final byte[] SYN = hex(
      "4500003c1c4640004006000dc6120101c6130101"
          + "9c4001bb0000000100000000a002faf000000000"
          + "020405b40402080a000000000000000001030307");

  @Test
  void describesATcpSyn() {
    StringBuilder sb = new StringBuilder();
    Headers.describe(ByteBuffer.wrap(SYN), SYN.length, sb);
    assertThat(sb).hasToString("tcp\t198.18.1.1\t40000\t198.19.1.1\t443\tS\t0");
  }

  @Test
  void describesUdpWithItsPayloadLength() {
    byte[] p = hex("4500002400004000401100000a0000010a000002" + "3039005000100000" + "0102030405060708");
    StringBuilder sb = new StringBuilder();
    Headers.describe(ByteBuffer.wrap(p), p.length, sb);
    assertThat(sb).hasToString("udp\t10.0.0.1\t12345\t10.0.0.2\t80\t-\t8");
  }

  @Test
  void tellsUdpFromTcpAndFromTruncatedPackets() {
    byte[] udp = hex("4500002400004000401100000a0000010a000002" + "3039005000100000" + "0102030405060708");
    assertThat(Headers.isUdp(ByteBuffer.wrap(udp), udp.length)).isTrue();
    assertThat(Headers.isUdp(ByteBuffer.wrap(SYN), SYN.length)).isFalse();
    assertThat(Headers.isUdp(ByteBuffer.wrap(udp), 19)).as("shorter than an IPv4 header").isFalse();
    byte[] v6 = new byte[48];
    v6[0] = 0x60;
    v6[6] = 17;
    assertThat(Headers.isUdp(ByteBuffer.wrap(v6), v6.length)).isTrue();
    v6[6] = 6;
    assertThat(Headers.isUdp(ByteBuffer.wrap(v6), v6.length)).isFalse();
  }

  @Test
  void marksTruncatedOrUnknownPackets() {
    StringBuilder sb = new StringBuilder();
    Headers.describe(ByteBuffer.wrap(new byte[] {0x45, 0}), 2, sb);
    assertThat(sb).hasToString("?\t-\t-\t-\t-\t-\t-");
  }

  static byte[] hex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }
}
