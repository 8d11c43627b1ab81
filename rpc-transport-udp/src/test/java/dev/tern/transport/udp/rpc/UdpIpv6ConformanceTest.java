package dev.tern.transport.udp.rpc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.jupiter.api.BeforeAll;

/** The conformance suite again over IPv6 loopback, where the machine has {@code ::1}. */
class UdpIpv6ConformanceTest extends UdpConformanceTest {
  private static InetAddress loopback;

  @BeforeAll
  static void needsIpv6() {
    try {
      InetAddress a = InetAddress.getByName("::1");
      try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(a, 0))) {
        loopback = a;
      }
    } catch (Exception e) {
      loopback = null;
    }
    assumeTrue(loopback != null, "this machine has no ::1");
  }

  @Override
  protected SocketAddress newServerAddress() {
    return new InetSocketAddress(loopback, 0);
  }

  @Override
  protected String authorityFor(SocketAddress address) {
    return "[::1]:" + ((InetSocketAddress) address).getPort();
  }
}
