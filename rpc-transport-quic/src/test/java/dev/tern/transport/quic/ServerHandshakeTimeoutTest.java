package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.ConnectionWatchingProvider;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Server;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's {@code handshakeTimeout} on QUIC: a client whose first packet reached the server
 * and which then went silent (a real socket that never answers the server's handshake flight) has
 * its connection closed after the timeout, long before QUIC's idle timeout would end it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServerHandshakeTimeoutTest {

  @Test
  void aConnectionWhoseClientFallsSilentMidHandshakeIsClosedAfterTheHandshakeTimeout() throws Exception {
    ConnectionWatchingProvider watching = new ConnectionWatchingProvider(new QuicTransportProvider());
    Server server = TernServerBuilder.create().addTransportProvider(watching)
        .listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server())
        .handshakeTimeout(500, TimeUnit.MILLISECONDS)
        // The idle timeout far beyond the wait below: only the handshake timeout can end it in time.
        .transportOption(QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, 120_000L)
        .build().start();
    InetSocketAddress serverAddress = (InetSocketAddress) server.getListenSockets().get(0);
    ClientTransport client = null;
    try (UdpRelay relay = new UdpRelay(serverAddress)) {
      relay.silentAfterFirstClientDatagram();
      client = Harness.PROVIDER.newClientTransport(relay.address(), "localhost:" + serverAddress.getPort(),
          Harness.clientOptions().with(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS, 60_000L));
      client.start(new Harness.TransportEvents());
      watching.firstCreated.get(10, TimeUnit.SECONDS);
      long createdNs = System.nanoTime();
      watching.firstTerminated.get(10, TimeUnit.SECONDS);
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - createdNs);
      assertThat(tookMs).as("closed by the 500 ms handshake timeout, not QUIC's 120 s idle timeout")
          .isLessThan(10_000);
      assertThat(watching.readies.get()).as("the connection never became ready").isZero();
    } finally {
      if (client != null) {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
