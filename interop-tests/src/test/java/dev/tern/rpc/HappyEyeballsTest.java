package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.conformance.Echo;
import dev.tern.conformance.TestCertificates;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Happy Eyeballs (RFC 8305) on real sockets: a host whose IPv6 address is dead (its SYNs vanish)
 * and whose IPv4 address is live, in the order a resolver gives them (IPv6 first). The channel
 * starts the IPv4 attempt one head start after the IPv6 one, without waiting for the IPv6
 * connect to time out, and the call is carried over IPv4.
 */
class HappyEyeballsTest {
  private static final TestCertificates CERTS = TestCertificates.generate();

  @Test
  @Timeout(60)
  void aDeadIpv6AddressCostsOneHeadStartBeforeTheLiveIpv4One() throws Exception {
    InetAddress v6 = InetAddress.getByName("::1");
    InetAddress v4 = InetAddress.getByName("127.0.0.1");
    List<AutoCloseable> held = new ArrayList<>();
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress(v4, 0))
        .addService(Echo.service()).tls(CERTS.server()).build().start();
    try {
      int dead = deadTcpPort(v6, held);
      List<SocketAddress> addresses = Arrays.asList(new InetSocketAddress(v6, dead),
          new InetSocketAddress(v4, server.getPort()));
      long headStartNanos = TernChannelBuilder.DEFAULT_RACE_HEAD_START_NANOS;
      ManagedChannel channel = TernChannelBuilder.forAddresses(() -> addresses, "localhost:" + server.getPort())
          .transports("tcp").tls(CERTS.client()).build();
      try {
        long start = System.nanoTime();
        assertThat(Echo.call(channel, "over IPv4")).isEqualTo("over IPv4");
        long elapsed = System.nanoTime() - start;
        System.out.printf("happy eyeballs: dead IPv6 first, first answer over IPv4 after %.0f ms (head start %d ms)%n",
            elapsed / 1e6, TimeUnit.NANOSECONDS.toMillis(headStartNanos));
        assertThat(((InetSocketAddress) TernChannels.connectionInfo(channel).remoteAddress()).getAddress())
            .as("the address the call went to").isEqualTo(v4);
        // It waited the head start for IPv6, and not much more: a dead address otherwise holds a
        // connect until TCP gives up (minutes) or the channel's 20 s handshake timeout.
        assertThat(elapsed).as("ns to the first answer").isGreaterThanOrEqualTo(headStartNanos)
            .isLessThan(headStartNanos + TimeUnit.SECONDS.toNanos(5));
      } finally {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      for (AutoCloseable c : held) {
        c.close();
      }
    }
  }

  /**
   * A TCP port on {@code address} whose SYNs go unanswered: a listener that never accepts, its
   * accept queue filled, so that the kernel drops every further SYN (as a host that is down).
   * The sockets it holds are added to {@code held}.
   */
  private static int deadTcpPort(InetAddress address, List<AutoCloseable> held) throws IOException {
    ServerSocket listener;
    try {
      listener = new ServerSocket(0, 1, address);
    } catch (IOException e) {
      assumeTrue(false, "this machine has no " + address + ": " + e);
      throw e;
    }
    held.add(listener);
    for (int i = 0; i < 16; i++) {
      Socket s = new Socket();
      held.add(s);
      try {
        s.connect(listener.getLocalSocketAddress(), 300);
      } catch (SocketTimeoutException dropped) {
        return listener.getLocalPort(); // the queue is full: this SYN went unanswered
      }
    }
    throw new IllegalStateException("the accept queue of " + listener + " never filled");
  }
}
