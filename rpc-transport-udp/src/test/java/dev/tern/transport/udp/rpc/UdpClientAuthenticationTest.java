package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Client authentication and server key rotation through the {@code udp} provider's options, over
 * real sockets on loopback: a listed client's calls see the key it proved; a server holding a
 * next key answers clients pinning either; a client the server does not admit learns it at once,
 * from the server's CONNECTION_CLOSE, well before its handshake timeout (the core's side of the
 * refusal: ClientAuthenticationTest).
 */
@Timeout(60)
class UdpClientAuthenticationTest {
  private static final byte[] CLIENT_KEY = UdpTransportOptions.newServerKey();

  @Test
  void anAdmittedClientsCallsCarryItsPublicKey() throws Exception {
    byte[] clientPublic = UdpTransportOptions.publicKeyOf(CLIENT_KEY);
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(UdpTransportOptions.ALLOWED_CLIENT_KEYS, List.of(clientPublic)));
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions()
        .with(UdpTransportOptions.CLIENT_STATIC_KEY, CLIENT_KEY), new Loopback.Events());
    try {
      assertThat(Loopback.echo(client, "test.Auth/Known", "x").status
          .get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(server.attributes.poll(10, TimeUnit.SECONDS)
          .get(UdpTransportOptions.CLIENT_PUBLIC_KEY)).isEqualTo(clientPublic);
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aServerHoldingANextKeyAnswersClientsPinningIt() throws Exception {
    byte[] next = UdpTransportOptions.newServerKey();
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(UdpTransportOptions.ADDITIONAL_SERVER_KEYS, Map.of(2, next)));
    TransportOptions pinsNext = Loopback.clientOptions()
        .with(UdpTransportOptions.SERVER_KEY_ID, 2)
        .with(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(next));
    UdpClientTransport onNext = Loopback.connect(server.port(), pinsNext, new Loopback.Events());
    UdpClientTransport onCurrent = Loopback.connect(server.port(), Loopback.clientOptions(),
        new Loopback.Events());
    try {
      for (UdpClientTransport c : List.of(onNext, onCurrent)) {
        assertThat(Loopback.echo(c, "test.Auth/Rotation", "x").status
            .get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      }
    } finally {
      onNext.shutdownNow(Status.CANCELLED.withDescription("test over"));
      onCurrent.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aClientTheServerDoesNotAdmitIsToldAtOnceWhy() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions()
        .with(UdpTransportOptions.ALLOWED_CLIENT_KEYS,
            List.of(UdpTransportOptions.publicKeyOf(CLIENT_KEY))));
    // A handshake timeout far beyond the wait below: only the server's answer can end the
    // attempt in time.
    long handshakeTimeoutMs = 120_000;
    for (TransportOptions refused : List.of(
        Loopback.clientOptions().with(UdpTransportOptions.CLIENT_STATIC_KEY,
            UdpTransportOptions.newServerKey()),
        Loopback.clientOptions())) { // anonymous
      Loopback.Events events = new Loopback.Events();
      // The server's answers wait in the relay until the call waits for the handshake: on
      // loopback the refusal could otherwise end the transport before the call reaches it.
      Loopback.Relay relay = Loopback.Relay.holdingToClient(server.port());
      UdpClientTransport client = (UdpClientTransport) Loopback.PROVIDER.newClientTransport(
          new java.net.InetSocketAddress("127.0.0.1", relay.port()), "localhost:" + server.port(),
          refused.with(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS, handshakeTimeoutMs));
      client.start(events);
      Loopback.Call call = Loopback.echo(client, "test.Auth/Refused", "x");
      CountDownLatch registered = new CountDownLatch(1); // the loop runs its tasks in order
      assertThat(client.run(registered::countDown)).isTrue();
      assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();
      relay.releaseToClient();
      try {
        Status shutdown = events.shutdown.get(30, TimeUnit.SECONDS);
        assertThat(shutdown.getCode()).as("%s", shutdown).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(shutdown.getDescription())
            .contains(String.valueOf(relay.port())).contains("refused this client")
            .contains("CLIENT_NOT_ALLOWED");
        Status status = call.status.get(10, TimeUnit.SECONDS);
        assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(status.getDescription()).contains("CLIENT_NOT_ALLOWED");
        assertThat(events.ready).isNotDone();
        assertThat(events.terminated.await(10, TimeUnit.SECONDS)).isTrue();
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
        relay.close();
      }
    }
    assertThat(server.headers).isEmpty(); // no call reached the server
    assertThat(server.stop()).isTrue();
  }
}
