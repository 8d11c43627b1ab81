package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TransportMemory;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A channel that names no transport, against real QUIC and TCP on loopback: it uses QUIC where QUIC
 * answers, falls back to TCP where UDP is black-holed, remembers that, and closes every loser.
 */
@Timeout(60)
class TransportFallbackTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final TransportMemory memory = TransportMemory.builder().build();
  private final CountingProvider quic = new CountingProvider("quic");
  private final CountingProvider tcp = new CountingProvider("tcp");
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (AutoCloseable c : closeables) {
      c.close();
    }
    scheduler.shutdownNow();
    assertThat(quic.live()).as("quic client transports left open").isZero();
    assertThat(tcp.live()).as("tcp client transports left open").isZero();
  }

  /** A UDP socket that reads and discards every datagram: UDP is black-holed, no ICMP comes back. */
  private static final class BlackHole implements AutoCloseable {
    final DatagramSocket socket;
    final AtomicInteger swallowed = new AtomicInteger();
    private final Thread reader;

    BlackHole() throws SocketException {
      socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      reader = new Thread(() -> {
        DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
        try {
          while (true) {
            socket.receive(p);
            swallowed.incrementAndGet();
          }
        } catch (IOException closed) {
          // the socket was closed: done
        }
      }, "black-hole");
      reader.setDaemon(true);
      reader.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    @Override
    public void close() throws InterruptedException {
      socket.close();
      reader.join(5000);
    }
  }

  private Server startServer(int port, String... transports) throws IOException {
    TernServerBuilder b = TernServerBuilder.create().tls(CERTS.server())
        .addService(TernTestService.definition(scheduler));
    for (String t : transports) {
      b.listen(t, new InetSocketAddress("127.0.0.1", port));
    }
    Server server = b.build().start();
    closeables.add(() -> {
      server.shutdownNow();
      server.awaitTermination(10, TimeUnit.SECONDS);
    });
    return server;
  }

  private ManagedChannel channel(int port, long headStartMillis, long handshakeTimeoutMillis) {
    ManagedChannel c = TernChannelBuilder.forAddress("127.0.0.1", port).tls(CERTS.client())
        .addTransportProvider(quic).addTransportProvider(tcp).transportMemory(memory)
        .transportRaceHeadStart(headStartMillis, TimeUnit.MILLISECONDS)
        .handshakeTimeout(handshakeTimeoutMillis, TimeUnit.MILLISECONDS).build();
    channels.add(c);
    return c;
  }

  private static void call(ManagedChannel c) throws Exception {
    new InteropClientCases(c).run(InteropCase.EMPTY_UNARY);
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  /** A black hole and a TCP server on the same port number (retried if TCP's port is taken). */
  private BlackHole blackHoleWithTcpServer() throws Exception {
    for (int attempt = 0; ; attempt++) {
      BlackHole hole = new BlackHole();
      try {
        startServer(hole.port(), "tcp");
        closeables.add(0, hole);
        return hole;
      } catch (IOException taken) {
        hole.close();
        if (attempt == 4) {
          throw taken;
        }
      }
    }
  }

  @Test
  void blackHoledUdpFallsBackToTcpAndTheNextChannelGoesStraightToTcp() throws Exception {
    BlackHole hole = blackHoleWithTcpServer();
    ManagedChannel first = channel(hole.port(), 300, 3000);
    long start = System.nanoTime();
    call(first);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf("UDP black-holed: first call over %s after %d ms (head start 300 ms)%n",
        TernChannels.selectedTransport(first), tookMillis);
    assertThat(TernChannels.selectedTransport(first)).isEqualTo("tcp");
    assertThat(tookMillis).as("TCP started only after QUIC's head start").isGreaterThanOrEqualTo(300);
    assertThat(hole.swallowed.get()).as("QUIC did send its Initial to the black hole").isPositive();
    await(() -> memory.isBroken(first.authority(), "quic"), "QUIC marked broken once its handshake timed out");
    await(() -> quic.live() == 0, "the QUIC racer terminated");

    ManagedChannel second = channel(hole.port(), 300, 3000);
    call(second);
    assertThat(TernChannels.selectedTransport(second)).isEqualTo("tcp");
    assertThat(quic.created.get()).as("QUIC is not tried while marked broken").isEqualTo(1);
  }

  @Test
  void aRefusedUdpPortStartsTcpWithoutWaitingForTheHeadStart() throws Exception {
    Server server = startServer(0, "tcp");
    int port = server.getPort();
    ManagedChannel c = channel(port, 20_000, 20_000);
    long start = System.nanoTime();
    call(c);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf("UDP port closed: first call over %s after %d ms (head start 20 s)%n",
        TernChannels.selectedTransport(c), tookMillis);
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
    assertThat(tookMillis).as("QUIC's failure (ICMP port unreachable) ends its head start early")
        .isLessThan(10_000);
    assertThat(memory.isBroken(c.authority(), "quic")).isTrue();
  }

  @Test
  void workingQuicCarriesTheCallsAgainstAServerOnTcpAndQuicOnOnePort() throws Exception {
    int port = freeUdpPort();
    startServer(port, "tcp", "quic");
    ManagedChannel c = channel(port, 10_000, 10_000);
    call(c);
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("quic");
    assertThat(TernChannels.connectionInfo(c).transport()).isEqualTo("quic");
    assertThat(tcp.created.get()).as("TCP's head start never ran out").isZero();
    assertThat(memory.lastWorked(c.authority())).isEqualTo("quic");
  }

  @Test
  void withNoHeadStartBothRaceAndTheLoserIsClosed() throws Exception {
    int port = freeUdpPort();
    startServer(port, "tcp", "quic");
    ManagedChannel c = channel(port, 0, 10_000);
    call(c);
    String winner = TernChannels.selectedTransport(c);
    assertThat(winner).isIn("quic", "tcp");
    CountingProvider loser = winner.equals("quic") ? tcp : quic;
    assertThat(loser.created.get()).isEqualTo(1);
    await(() -> loser.live() == 0, "the losing " + loser.name() + " transport terminated");
    call(c);
    assertThat(TernChannels.selectedTransport(c)).isEqualTo(winner);
  }

  @Test
  void whenBothFailTheCallIsUnavailableNamingBoth() throws Exception {
    BlackHole hole = new BlackHole();
    closeables.add(hole);
    ManagedChannel c = channel(hole.port(), 300, 1000);
    assertThatThrownBy(() -> call(c)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(e.getStatus().getDescription()).contains("quic: ").contains("tcp: ");
    });
  }

  private static int freeUdpPort() throws SocketException {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      return s.getLocalPort();
    }
  }
}
