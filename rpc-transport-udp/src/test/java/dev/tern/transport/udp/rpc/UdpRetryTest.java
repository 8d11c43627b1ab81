package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.SessionStore;
import dev.tern.rpc.spi.SessionStores;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.AddressValidation.RetryPolicy;
import dev.tern.transport.udp.connection.ConnectionStats;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Address validation through the {@code udp} provider, over real sockets on loopback
 * (docs/protocol.md §9.7-§9.9): a server that always sends a Retry serves calls; the client keeps
 * the server's NEW_TOKEN token in the channel's session store, and its next connection, carrying
 * it, is validated at once: the same server sends it no Retry.
 */
@Timeout(60)
class UdpRetryTest {

  private static ConnectionStats stats(UdpClientTransport client) throws Exception {
    CompletableFuture<ConnectionStats> f = new CompletableFuture<>();
    assertThat(client.run(() -> f.complete(client.connection().stats()))).isTrue();
    return f.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aServerThatAlwaysRetriesServesCallsAndATokenSkipsTheNextRetry() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(UdpTransportOptions.RETRY_POLICY, RetryPolicy.ALWAYS));
    SessionStore store = SessionStores.inMemory(16);
    TransportOptions options = Loopback.clientOptions().with(TransportOptions.SESSION_STORE,
        store);
    String authority = "localhost:" + server.port();
    try {
      UdpClientTransport first = Loopback.connect(server.port(), options, new Loopback.Events());
      try {
        assertThat(Loopback.echo(first, "test.Retry/First", "x").status
            .get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
        assertThat(stats(first).retriesAccepted).as("through a Retry").isEqualTo(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.get(authority, UdpTokens.KIND, System.currentTimeMillis()) == null
            && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        assertThat(store.get(authority, UdpTokens.KIND, System.currentTimeMillis()))
            .as("the NEW_TOKEN token, kept").isNotNull();
      } finally {
        first.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
      UdpClientTransport second = Loopback.connect(server.port(), options, new Loopback.Events());
      try {
        assertThat(store.get(authority, UdpTokens.KIND, System.currentTimeMillis()))
            .as("the token was taken, not to be reused").isNull();
        assertThat(Loopback.echo(second, "test.Retry/Second", "y").status
            .get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
        assertThat(stats(second).retriesAccepted).as("the token validated the address")
            .isZero();
      } finally {
        second.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void badRetryOptionsAreRefusedNamingTheOption() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> UdpTransportOptions.server(
        Loopback.serverOptions().with(UdpTransportOptions.MAX_HANDSHAKES, 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("udp.maxHandshakes");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> UdpTransportOptions.server(
        Loopback.serverOptions().with(UdpTransportOptions.RETRY_ABOVE_HANDSHAKES, -1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("udp.retryAboveHandshakes");
  }
}
