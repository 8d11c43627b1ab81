package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.PROVIDER;
import static dev.tern.transport.quic.Harness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.Priority;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class QuicTransportTest {
  private final List<Harness.EchoServer> servers = new ArrayList<>();
  private final List<ClientTransport> clients = new ArrayList<>();
  private final List<Harness.TransportEvents> clientEvents = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (ClientTransport c : clients) {
      c.shutdownNow(Status.CANCELLED.withDescription("test over"));
    }
    for (Harness.TransportEvents e : clientEvents) {
      assertThat(e.terminated.await(10, TimeUnit.SECONDS)).as("client terminated").isTrue();
    }
    for (Harness.EchoServer s : servers) {
      s.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(s.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }

  private Harness.EchoServer server(TransportOptions options) throws Exception {
    Harness.EchoServer s = new Harness.EchoServer(options);
    servers.add(s);
    return s;
  }

  private ClientTransport client(int port, TransportOptions options, Harness.TransportEvents events) {
    ClientTransport t = PROVIDER.newClientTransport(new InetSocketAddress("127.0.0.1", port), "localhost:" + port, options);
    clients.add(t);
    clientEvents.add(events);
    t.start(events);
    return t;
  }

  @Test
  void providerIsFoundByServiceLoaderAndAvailable() {
    TransportProvider quic = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
        .filter(p -> p.name().equals("quic")).findFirst().orElseThrow();
    assertThat(quic.isAvailable()).as(quic.unavailableReason()).isTrue();
    assertThat(quic.unavailableReason()).isNull();
    assertThat(quic.versionHandshake()).isEqualTo(TransportProvider.VersionHandshake.IN_TRANSPORT);
  }

  @Test
  void echoCarriesMessagesMetadataAndTrailersBothWays() throws Exception {
    Harness.EchoServer server = server(Harness.serverOptions());
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = client(server.port(), Harness.clientOptions(), events);
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("x-ascii", Metadata.ASCII_STRING_MARSHALLER), "hello");
    md.put(Metadata.Key.of("x-bin", Metadata.BINARY_BYTE_MARSHALLER), new byte[] {0, (byte) 0xff, 10, 13});
    Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream").metadata(md)
        .deadline(Deadline.after(20, TimeUnit.SECONDS)).build());
    call.stream.request(10);
    call.stream.writeMessage(utf8("one"));
    call.stream.writeMessage(utf8("two"));
    call.stream.halfClose();

    Status status = call.status.get(10, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    assertThat(status.getDescription()).isEqualTo("fine ✓ 100%");
    assertThat(call.messages).containsExactly("one", "two");
    Metadata headers = call.headers.get();
    assertThat(headers.get(Metadata.Key.of("x-echo", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("yes");
    assertThat(headers.get(Metadata.Key.of("x-ascii", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("hello");
    assertThat(headers.get(Metadata.Key.of("x-bin", Metadata.BINARY_BYTE_MARSHALLER)))
        .containsExactly(0, (byte) 0xff, 10, 13);
    assertThat(call.trailers.get(Metadata.Key.of("x-trailer", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("done");

    RequestHeaders seen = server.headers.poll(1, TimeUnit.SECONDS);
    assertThat(seen.fullMethodName()).isEqualTo("test.Echo/Stream");
    assertThat(seen.authority()).isEqualTo("localhost:" + server.port());
    assertThat(seen.deadline()).isNotNull();
    assertThat(seen.deadline().timeRemaining(TimeUnit.SECONDS)).isBetween(10L, 20L);
    ConnectionInfo info = events.ready.get(10, TimeUnit.SECONDS);
    assertThat(info.transport()).isEqualTo("quic");
    assertThat(info.protocolVersion()).isEqualTo(1);
    ConnectionInfo after = client.connectionInfo();
    assertThat(after.smoothedRttNanos()).isPositive();
    assertThat(after.congestionWindowBytes()).isPositive();
    assertThat(after.bytesSent()).isPositive();
    assertThat(after.packetsSent()).isPositive();
  }

  @Test
  void highestCommonVersionIsAgreed() throws Exception {
    Harness.EchoServer server = server(Harness.serverOptions().with(TransportOptions.PROTOCOL_VERSIONS, new int[] {3, 2}));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = client(server.port(),
        Harness.clientOptions().with(TransportOptions.PROTOCOL_VERSIONS, new int[] {1, 2}), events);
    events.ready.get(10, TimeUnit.SECONDS);
    awaitSettings((QuicClientTransport) client);
    assertThat(client.connectionInfo().protocolVersion()).isEqualTo(2);
  }

  @Test
  void aLaterConnectionIsReadyAtItsHandshakeWithTheVersionsTheServerNamedBefore() throws Exception {
    Harness.EchoServer server = server(Harness.serverOptions());
    ReadyProbe first = new ReadyProbe();
    first.start(server.port());
    assertThat(first.events.ready.get(10, TimeUnit.SECONDS).protocolVersion()).isEqualTo(1);
    assertThat(first.settingsAtReady.get()).as("first contact: ready once the server's SETTINGS arrived").isTrue();

    ReadyProbe second = new ReadyProbe();
    second.start(server.port());
    // The server sends its SETTINGS only once it has our Finished, so they cannot have arrived when
    // our handshake completes: ready now means no call held by the call layer waits for them.
    assertThat(second.events.ready.get(10, TimeUnit.SECONDS).protocolVersion()).isEqualTo(1);
    assertThat(second.settingsAtReady.get()).as("later contact: ready before this connection's SETTINGS").isFalse();
    awaitSettings(second.transport);
    assertThat(second.transport.connectionInfo().protocolVersion()).isEqualTo(1);
  }

  /** A client transport that records whether its server's SETTINGS had arrived when it became ready. */
  private final class ReadyProbe {
    final AtomicReference<Boolean> settingsAtReady = new AtomicReference<>();
    QuicClientTransport transport;
    final Harness.TransportEvents events = new Harness.TransportEvents() {
      @Override
      public void transportReady(ConnectionInfo info) {
        settingsAtReady.set(transport.settingsReceived());
        super.transportReady(info);
      }
    };

    void start(int port) {
      transport = (QuicClientTransport) PROVIDER.newClientTransport(new InetSocketAddress("127.0.0.1", port),
          "localhost:" + port, Harness.clientOptions());
      clients.add(transport);
      clientEvents.add(events);
      transport.start(events);
    }
  }

  private static void awaitSettings(QuicClientTransport client) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!client.settingsReceived() && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(5);
    }
    assertThat(client.settingsReceived()).as("server SETTINGS arrived").isTrue();
  }

  @Test
  void noCommonVersionFailsWithFailedPreconditionNamingBothSets() throws Exception {
    // An earlier test's server on the same (reused) port would be remembered as speaking 1, and
    // the client ready before this server's SETTINGS say otherwise.
    KnownServerVersions.clear();
    Harness.EchoServer server = server(Harness.serverOptions().with(TransportOptions.PROTOCOL_VERSIONS, new int[] {3, 2}));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = client(server.port(),
        Harness.clientOptions().with(TransportOptions.PROTOCOL_VERSIONS, new int[] {1}), events);
    Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream").build());
    Status status = events.shutdown.get(10, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(status.getDescription()).contains("client speaks [1]").contains("server speaks [3,2]");
    assertThat(call.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(events.ready).isNotDone();
  }

  @Test
  void clientCancelResetsTheStreamAndTheServerSeesIt() throws Exception {
    Harness.EchoServer server = server(Harness.serverOptions());
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = client(server.port(), Harness.clientOptions(), events);
    Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Stream")
        .priority(Priority.of(1, true)).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("ping"));
    call.stream.flush();
    call.headers.get(10, TimeUnit.SECONDS);
    call.stream.cancel(Status.CANCELLED.withDescription("user left"));
    assertThat(call.status.get(10, TimeUnit.SECONDS).getDescription()).isEqualTo("user left");
    Status serverSide = server.cancels.poll(10, TimeUnit.SECONDS);
    assertThat(serverSide).isNotNull();
    assertThat(serverSide.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(server.headers.poll().priority()).isEqualTo(Priority.of(1, true));
  }

  @Test
  void connectionStatisticsCountLossUnderImpairment() throws Exception {
    Harness.EchoServer server = server(Harness.serverOptions()
        .with(QuicTransportOptions.IMPAIRMENT, DatagramImpairment.loss(0.05, 42))
        .with(QuicTransportOptions.CONGESTION_CONTROL, QuicTransportOptions.CongestionControl.BBR));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = client(server.port(), Harness.clientOptions()
        .with(QuicTransportOptions.CONGESTION_CONTROL, QuicTransportOptions.CongestionControl.BBR), events);
    Harness.Call call = Harness.call(client, RequestHeaders.builder("test.Echo/Bulk").build());
    call.stream.request(Integer.MAX_VALUE);
    byte[] chunk = new byte[16 * 1024];
    for (int i = 0; i < 64; i++) {
      call.stream.writeMessage(java.nio.ByteBuffer.wrap(chunk));
    }
    call.stream.halfClose();
    assertThat(call.status.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(call.messages).hasSize(64);
    ConnectionInfo info = client.connectionInfo();
    assertThat(info.packetsLost()).as("packets lost, " + info).isPositive();
    assertThat(info.packetsRetransmitted()).as("packets retransmitted, " + info).isPositive();
    assertThat(info.bytesReceived()).isGreaterThan(64L * 16 * 1024);
  }

  @Test
  void bindingABoundPortFailsNamingTheAddress() throws Exception {
    Harness.EchoServer first = server(Harness.serverOptions());
    ServerTransport second = PROVIDER.newServerTransport(new InetSocketAddress("127.0.0.1", first.port()),
        Harness.serverOptions());
    assertThatThrownBy(() -> second.start(new Harness.NoCalls()))
        .isInstanceOf(IOException.class).hasMessageContaining("127.0.0.1:" + first.port());
  }
}
