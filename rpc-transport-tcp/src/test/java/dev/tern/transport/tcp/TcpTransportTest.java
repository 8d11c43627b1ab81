package dev.tern.transport.tcp;

import dev.tern.conformance.TestCertificates;
import static dev.tern.transport.tcp.Recorders.TIMEOUT_SECONDS;
import static dev.tern.transport.tcp.Recorders.take;
import static dev.tern.transport.tcp.Recorders.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The TCP adapter driven directly through the SPI, in plaintext and in TLS. */
@Timeout(60)
class TcpTransportTest {
  private static final Metadata.Key<String> TAG = Metadata.Key.of("x-tag", Metadata.ASCII_STRING_MARSHALLER);
  private static final TestCertificates CERTS = TestCertificates.generate();

  private final TransportProvider provider = new TcpTransportProvider();
  private ServerTransport server;
  private ClientTransport client;
  private final Recorders.Server serverEvents = new Recorders.Server();
  private final Recorders.Transport clientEvents = new Recorders.Transport();

  @AfterEach
  void tearDown() throws Exception {
    if (client != null) {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      clientEvents.terminated.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
      serverEvents.terminated.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
  }

  private void start(boolean tls, TransportOptions serverOptions) throws IOException {
    server = provider.newServerTransport(new InetSocketAddress("127.0.0.1", 0),
        tls ? serverOptions.with(TransportOptions.TLS, CERTS.server()) : serverOptions);
    server.start(serverEvents);
    InetSocketAddress bound = (InetSocketAddress) server.listenAddress();
    client = provider.newClientTransport(bound, "localhost:" + bound.getPort(),
        tls ? TransportOptions.defaults().with(TransportOptions.TLS, CERTS.client()) : TransportOptions.defaults());
    client.start(clientEvents);
  }

  @Test
  void isFoundByServiceLoaderAsTcpWithAPerCallVersionHeader() {
    TransportProvider found = ServiceLoader.load(TransportProvider.class).stream()
        .map(ServiceLoader.Provider::get).filter(p -> p.name().equals("tcp")).findFirst().orElseThrow();
    assertThat(found).isInstanceOf(TcpTransportProvider.class);
    assertThat(found.isAvailable()).isTrue();
    assertThat(found.versionHandshake()).isEqualTo(TransportProvider.VersionHandshake.PER_CALL_HEADER);
  }

  @ParameterizedTest(name = "tls={0}")
  @ValueSource(booleans = {false, true})
  void unaryCallCarriesHeadersMessagesStatusAndTrailers(boolean tls) throws Exception {
    start(tls, TransportOptions.defaults());
    ConnectionInfo info = clientEvents.ready.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(info.transport()).isEqualTo("tcp");

    Metadata metadata = new Metadata();
    metadata.put(TAG, "blue");
    Recorders.Client call = new Recorders.Client();
    ClientStream stream = client.newStream(RequestHeaders.builder("test.Echo/Say")
        .metadata(metadata).deadline(Deadline.after(30, TimeUnit.SECONDS)).messageEncoding("gzip").build(), call);
    stream.writeMessage(utf8("hello"));
    stream.halfClose();
    stream.request(1);

    Recorders.ServerCallRecord served = take(serverEvents.calls, "a server stream");
    assertThat(served.headers.fullMethodName()).isEqualTo("test.Echo/Say");
    assertThat(served.headers.authority()).startsWith("localhost:");
    assertThat(served.headers.metadata().get(TAG)).isEqualTo("blue");
    assertThat(served.headers.metadata().keys()).doesNotContain("grpc-timeout", "content-type", "te");
    assertThat(served.headers.messageEncoding()).isEqualTo("gzip");
    assertThat(served.headers.acceptedMessageEncodings()).contains("gzip");
    assertThat(served.headers.deadline().timeRemaining(TimeUnit.SECONDS)).isBetween(20L, 30L);
    assertThat(served.stream.connectionInfo().remoteAddress()).isNotNull();

    served.stream.request(1);
    assertThat(take(served.messages, "the request")).isEqualTo("hello");
    served.halfClosed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    served.stream.setMessageCompression("gzip");
    Metadata responseHeaders = new Metadata();
    responseHeaders.put(TAG, "green");
    served.stream.writeHeaders(responseHeaders);
    served.stream.writeMessage(utf8("hello back"));
    Metadata trailers = new Metadata();
    trailers.put(TAG, "red");
    served.stream.close(Status.OK, trailers);

    assertThat(call.headers.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).get(TAG)).isEqualTo("green");
    assertThat(take(call.messages, "the response")).isEqualTo("hello back");
    assertThat(call.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).isOk()).isTrue();
    assertThat(call.trailers.get().get(TAG)).isEqualTo("red");
    served.completed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(client.connectionInfo().localAddress()).isNotNull();
  }

  @Test
  void connectionInfoCarriesTheKernelsTcpCountersOnLinux() throws Exception {
    assumeTrue(ClientSockets.epollAvailable(), "epoll (and so TCP_INFO) is only on Linux");
    start(false, TransportOptions.defaults());
    clientEvents.ready.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    Recorders.Client call = new Recorders.Client();
    ClientStream stream = client.newStream(RequestHeaders.builder("test.Echo/Say").build(), call);
    stream.halfClose();
    take(serverEvents.calls, "a server stream").stream.close(Status.OK, new Metadata());
    call.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);

    ConnectionInfo info = client.connectionInfo();
    assertThat(info.transport()).isEqualTo("tcp");
    assertThat(info.smoothedRttNanos()).as("tcpi_rtt after a round trip").isPositive();
    assertThat(info.congestionWindowBytes()).as("snd_cwnd x snd_mss").isPositive();
    // Read from the kernel (-1 would mean unknown); not necessarily 0, since even loopback
    // retransmits now and then on a busy machine (a fresh-clone CI run saw 1).
    assertThat(info.packetsRetransmitted()).as("tcpi_total_retrans").isNotNegative();
    assertThat(info.localAddress()).isNotNull();
    assertThat(info.bytesSent()).as("not known through grpc-java").isEqualTo(-1);
  }

  @Test
  void serverErrorStatusReachesTheClientWithItsDescription() throws Exception {
    start(false, TransportOptions.defaults());
    Recorders.Client call = new Recorders.Client();
    ClientStream stream = client.newStream(RequestHeaders.builder("test.Echo/Fail").build(), call);
    stream.halfClose();
    Recorders.ServerCallRecord served = take(serverEvents.calls, "a server stream");
    served.stream.close(Status.FAILED_PRECONDITION.withDescription("not today"), new Metadata());
    Status status = call.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(status.getDescription()).isEqualTo("not today");
  }

  @Test
  void clientCancelClosesBothSidesAndKeepsTheCallersStatus() throws Exception {
    start(false, TransportOptions.defaults());
    Recorders.Client call = new Recorders.Client();
    ClientStream stream = client.newStream(RequestHeaders.builder("test.Echo/Slow").build(), call);
    stream.writeMessage(utf8("first"));
    Recorders.ServerCallRecord served = take(serverEvents.calls, "a server stream");
    served.stream.request(1);
    assertThat(take(served.messages, "the request")).isEqualTo("first");

    stream.cancel(Status.DEADLINE_EXCEEDED.withDescription("gave up"));
    assertThat(call.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(served.cancelled.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).isOk()).isFalse();
    stream.writeMessage(utf8("dropped after cancel")); // must be ignored, not throw
  }

  @Test
  void serverSeesTheClientsDeadlinePassAsDeadlineExceeded() throws Exception {
    start(false, TransportOptions.defaults());
    Recorders.Client call = new Recorders.Client();
    client.newStream(RequestHeaders.builder("test.Echo/Sleep")
        .deadline(Deadline.after(200, TimeUnit.MILLISECONDS)).build(), call);
    Recorders.ServerCallRecord served = take(serverEvents.calls, "a server stream");
    assertThat(served.cancelled.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(call.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  @Test
  void serverDeliversOnlyAsManyMessagesAsRequested() throws Exception {
    start(false, TransportOptions.defaults());
    Recorders.Client call = new Recorders.Client();
    ClientStream stream = client.newStream(RequestHeaders.builder("test.Echo/Stream").build(), call);
    for (int i = 0; i < 3; i++) {
      stream.writeMessage(utf8("m" + i));
    }
    Recorders.ServerCallRecord served = take(serverEvents.calls, "a server stream");
    served.stream.request(2);
    assertThat(take(served.messages, "m0")).isEqualTo("m0");
    assertThat(take(served.messages, "m1")).isEqualTo("m1");
    assertThat(served.messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    served.stream.request(1);
    assertThat(take(served.messages, "m2")).isEqualTo("m2");
    stream.halfClose();
    served.halfClosed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void oversizedRequestFailsWithResourceExhausted() throws Exception {
    start(false, TransportOptions.defaults().with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, 1000));
    Recorders.Client call = new Recorders.Client();
    ClientStream stream = client.newStream(RequestHeaders.builder("test.Echo/Big").build(), call);
    stream.writeMessage(utf8("x".repeat(5000)));
    stream.halfClose();
    Recorders.ServerCallRecord served = take(serverEvents.calls, "a server stream");
    served.stream.request(1);
    assertThat(call.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(served.messages).isEmpty();
  }

  @Test
  void bindingATakenPortFailsNamingTheAddress() throws Exception {
    start(false, TransportOptions.defaults());
    InetSocketAddress taken = (InetSocketAddress) server.listenAddress();
    ServerTransport second = provider.newServerTransport(taken, TransportOptions.defaults());
    assertThatThrownBy(() -> second.start(new Recorders.Server()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(String.valueOf(taken.getPort()));
  }

  @Test
  void refusedConnectionShutsTheTransportDownAndFailsItsCalls() throws Exception {
    start(false, TransportOptions.defaults());
    InetSocketAddress closed = (InetSocketAddress) server.listenAddress();
    server.shutdownNow(Status.UNAVAILABLE);
    serverEvents.terminated.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    server = null;
    client.shutdownNow(Status.CANCELLED);
    clientEvents.terminated.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);

    Recorders.Transport events = new Recorders.Transport();
    ClientTransport refused = provider.newClientTransport(closed, null, TransportOptions.defaults());
    refused.start(events);
    Recorders.Client call = new Recorders.Client();
    refused.newStream(RequestHeaders.builder("test.Echo/Say").build(), call);
    Status shutdown = events.shutdown.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(shutdown.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(shutdown.getDescription()).contains(String.valueOf(closed.getPort()));
    assertThat(call.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    events.terminated.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(events.ready).isNotDone();
    client = null;
  }

  @Test
  void serverShutdownIsSeenByTheClientAsTransportShutdown() throws Exception {
    start(false, TransportOptions.defaults());
    clientEvents.ready.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    server.shutdown();
    serverEvents.terminated.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    server = null;
    assertThat(clientEvents.shutdown.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.UNAVAILABLE);
    clientEvents.terminated.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    Recorders.Client call = new Recorders.Client();
    client.newStream(RequestHeaders.builder("test.Echo/Say").build(), call);
    assertThat(call.closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void tlsClientRejectsAServerItDoesNotTrust() throws Exception {
    server = provider.newServerTransport(new InetSocketAddress("127.0.0.1", 0),
        TransportOptions.defaults().with(TransportOptions.TLS, TestCertificates.generate().server()));
    server.start(serverEvents);
    InetSocketAddress bound = (InetSocketAddress) server.listenAddress();
    client = provider.newClientTransport(bound, "localhost:" + bound.getPort(),
        TransportOptions.defaults().with(TransportOptions.TLS, CERTS.client()));
    client.start(clientEvents);
    assertThat(clientEvents.shutdown.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(clientEvents.ready).isNotDone();
  }

  @Test
  void invalidTlsMaterialIsRejectedEagerly() {
    // Refused where it is given, before any transport sees it, naming the parameter.
    assertThatThrownBy(() -> dev.tern.rpc.spi.TlsSettings.forServer("junk".getBytes(), "junk".getBytes()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("certificateChainPem")
        .hasMessageContaining("BEGIN CERTIFICATE");
    assertThatThrownBy(() -> dev.tern.rpc.spi.TlsSettings.forServer(CERTS.certificatePem(), "junk".getBytes()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("privateKeyPem")
        .hasMessageContaining("openssl pkcs8");
  }
}
