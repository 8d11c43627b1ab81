package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.Echo;
import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grpc-java builder settings that the {@code tcp} transport carries out on the wire: the channel's
 * user agent, the header-block limits of both sides, and the server's handshake timeout (rows of
 * docs/builder-methods.md).
 */
@Timeout(60)
class TcpBuilderSettingsTest {
  private static final Metadata.Key<String> USER_AGENT = Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> BIG = Metadata.Key.of("big", Metadata.ASCII_STRING_MARSHALLER);
  private static final TestCertificates CERTS = TestCertificates.generate();

  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void tearDown() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private int start(TernServerBuilder b) throws Exception {
    Server s = b.listen("tcp", new InetSocketAddress("127.0.0.1", 0)).addService(Echo.service()).build().start();
    servers.add(s);
    return s.getPort();
  }

  private ManagedChannel channel(TernChannelBuilder b) {
    ManagedChannel c = b.transports("tcp").usePlaintext().build();
    channels.add(c);
    return c;
  }

  /** Records each call's request headers; answers with a header {@code big} as long as the request's says. */
  private static ServerInterceptor headersRecordedAndEchoedBig(List<Metadata> seen) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        seen.add(headers);
        String answer = headers.get(BIG);
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<Q, R>(call) {
          @Override
          public void sendHeaders(Metadata responseHeaders) {
            if (answer != null && !answer.isEmpty() && Character.isDigit(answer.charAt(0))) {
              responseHeaders.put(BIG, "r".repeat(Integer.parseInt(answer)));
            }
            super.sendHeaders(responseHeaders);
          }
        }, headers);
      }
    };
  }

  private static Channel withHeader(Channel channel, String value) {
    return ClientInterceptors.intercept(channel, new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(BIG, value);
            super.start(listener, headers);
          }
        };
      }
    });
  }

  @Test
  void userAgentGoesAheadOfGrpcNettysOwn() throws Exception {
    List<Metadata> seen = new CopyOnWriteArrayList<>();
    int port = start(TernServerBuilder.create().intercept(headersRecordedAndEchoedBig(seen)));
    ManagedChannel channel = channel(TernChannelBuilder.forAddress("127.0.0.1", port).userAgent("feed-app/2.1"));

    assertThat(Echo.call(channel, "hi")).isEqualTo("hi");

    assertThat(seen).hasSize(1);
    assertThat(seen.get(0).get(USER_AGENT)).startsWith("feed-app/2.1 ").contains("grpc-java-netty");
  }

  @Test
  void theServersMaxInboundMetadataSizeRefusesLargerRequestHeaders() throws Exception {
    List<Metadata> seen = new CopyOnWriteArrayList<>();
    int port = start(TernServerBuilder.create().intercept(headersRecordedAndEchoedBig(seen))
        .maxInboundMetadataSize(2_000));
    ManagedChannel channel = channel(TernChannelBuilder.forAddress("127.0.0.1", port));

    assertThat(Echo.call(withHeader(channel, "h".repeat(1_000)), "fits")).isEqualTo("fits");
    Status refused = Echo.failure(withHeader(channel, "h".repeat(3_000)), "too large");

    assertThat(refused.getCode()).isNotEqualTo(Status.Code.OK);
    assertThat(seen).as("the refused call never reached the server's interceptors").hasSize(1);
    assertThat(Echo.call(channel, "again")).as("other calls go on").isEqualTo("again");
  }

  @Test
  void theChannelsMaxInboundMetadataSizeFailsLargerResponseHeaders() throws Exception {
    List<Metadata> seen = new CopyOnWriteArrayList<>();
    int port = start(TernServerBuilder.create().intercept(headersRecordedAndEchoedBig(seen)));
    ManagedChannel channel = channel(TernChannelBuilder.forAddress("127.0.0.1", port).maxInboundMetadataSize(2_000));

    assertThat(Echo.call(withHeader(channel, "1000"), "fits")).isEqualTo("fits");
    Status refused = Echo.failure(withHeader(channel, "3000"), "too large");

    assertThat(refused.getCode()).isNotEqualTo(Status.Code.OK);
    assertThat(Echo.call(channel, "again")).as("other calls go on").isEqualTo("again");
  }

  @Test
  void theServerDropsAConnectionThatDoesNotFinishItsHandshakeInTime() throws Exception {
    int port = start(TernServerBuilder.create()
        .useTransportSecurity(new ByteArrayInputStream(CERTS.certificatePem()),
            new ByteArrayInputStream(CERTS.privateKeyPem()))
        .handshakeTimeout(500, TimeUnit.MILLISECONDS));
    CompletableFuture<Long> closedAfterMillis = new CompletableFuture<>();
    try (Socket silent = new Socket("127.0.0.1", port)) {
      // A client that connects and never sends its TLS ClientHello.
      silent.setSoTimeout(15_000);
      long start = System.nanoTime();
      InputStream in = silent.getInputStream();
      int read;
      try {
        read = in.read();
      } catch (java.net.SocketException reset) {
        read = -1;
      }
      assertThat(read).as("the server closed the connection, sending nothing").isEqualTo(-1);
      closedAfterMillis.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
    assertThat(closedAfterMillis.get()).as("ms until the server closed it (the default would be 20 s)")
        .isLessThan(10_000);
  }

  /** Reads frames until one of {@code type} (returned) or the connection's end (null). */
  private static RawHttp2Peer.Frame until(RawHttp2Peer client, int type, List<RawHttp2Peer.Frame> seen)
      throws Exception {
    for (RawHttp2Peer.Frame f = client.next(); f != null; f = client.next()) {
      seen.add(f);
      if (f.type() == type) {
        return f;
      }
    }
    return null;
  }

  @Test
  void maxConnectionIdleSendsGoAwayToAConnectionWithNoCall() throws Exception {
    int port = start(TernServerBuilder.create().maxConnectionIdle(300, TimeUnit.MILLISECONDS));
    List<RawHttp2Peer.Frame> seen = new ArrayList<>();
    try (RawHttp2Peer client = RawHttp2Peer.connect(port, true, 15_000)) {
      RawHttp2Peer.Frame goAway = until(client, RawHttp2Peer.GOAWAY, seen);

      assertThat(goAway).as("GOAWAY after the idle time; frames seen: %s", seen).isNotNull();
      assertThat(goAway.goAwayDebug()).isEqualTo("max_idle");
    }
  }

  @Test
  void theServersKeepAlivePingsAndClosesAConnectionThatNeverAnswers() throws Exception {
    int port = start(TernServerBuilder.create().keepAliveTime(200, TimeUnit.MILLISECONDS)
        .keepAliveTimeout(300, TimeUnit.MILLISECONDS));
    List<RawHttp2Peer.Frame> seen = new ArrayList<>();
    try (RawHttp2Peer client = RawHttp2Peer.connect(port, false, 15_000)) {
      RawHttp2Peer.Frame ping = until(client, RawHttp2Peer.PING, seen);
      assertThat(ping).as("a keep-alive PING from the server; frames seen: %s", seen).isNotNull();
      assertThat(ping.ack()).isFalse();

      // The server closes the connection that leaves its PING unanswered (keepAliveTimeout); a read
      // that times out instead throws and fails the test.
      int framesUntilClosed = 0;
      while (client.next() != null) {
        framesUntilClosed++;
      }
      assertThat(framesUntilClosed).as("frames after the PING before the server closed").isLessThan(100);
    }
  }

  @Test
  void pingsWithoutACallArePolicedUnlessPermitted() throws Exception {
    int policing = start(TernServerBuilder.create());
    List<RawHttp2Peer.Frame> seen = new ArrayList<>();
    try (RawHttp2Peer client = RawHttp2Peer.connect(policing, true, 15_000)) {
      for (long id = 1; id <= 5; id++) {
        client.ping(id);
      }
      RawHttp2Peer.Frame goAway = until(client, RawHttp2Peer.GOAWAY, seen);

      assertThat(goAway).as("GOAWAY for pings without a call; frames seen: %s", seen).isNotNull();
      assertThat(goAway.goAwayError()).isEqualTo(RawHttp2Peer.ENHANCE_YOUR_CALM);
      assertThat(goAway.goAwayDebug()).isEqualTo("too_many_pings");
    }

    int permitting = start(TernServerBuilder.create().permitKeepAliveWithoutCalls(true)
        .permitKeepAliveTime(0, TimeUnit.MILLISECONDS));
    seen.clear();
    try (RawHttp2Peer client = RawHttp2Peer.connect(permitting, true, 15_000)) {
      for (long id = 1; id <= 5; id++) {
        client.ping(id);
      }
      int acks = 0;
      while (acks < 5) {
        RawHttp2Peer.Frame f = client.next();
        assertThat(f).as("the connection stays open; frames: %s", seen).isNotNull();
        seen.add(f);
        assertThat(f.type()).as("no GOAWAY where pings without calls are permitted; frames: %s", seen)
            .isNotEqualTo(RawHttp2Peer.GOAWAY);
        if (f.type() == RawHttp2Peer.PING && f.ack()) {
          acks++;
        }
      }
      assertThat(acks).as("every PING answered; frames: %s", seen).isEqualTo(5);
    }
  }

  @Test
  void keepAliveWithoutCallsPingsAConnectionThatHasNoCall() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<RawHttp2Peer.Frame> ping = new CompletableFuture<>();
      List<RawHttp2Peer.Frame> seen = new CopyOnWriteArrayList<>();
      Thread peer = new Thread(() -> {
        try (Socket accepted = listener.accept(); RawHttp2Peer server = RawHttp2Peer.accept(accepted, true, 40_000)) {
          for (RawHttp2Peer.Frame f = server.next(); f != null; f = server.next()) {
            seen.add(f);
            if (f.type() == RawHttp2Peer.PING && !f.ack()) {
              ping.complete(f);
              return;
            }
          }
          ping.completeExceptionally(new AssertionError("the channel closed the connection without a PING; frames: "
              + seen));
        } catch (Exception | AssertionError e) {
          ping.completeExceptionally(e);
        }
      }, "raw-http2-server");
      peer.setDaemon(true);
      peer.start();
      // grpc-java's shortest client keep-alive interval is 10 s, so this test takes that long.
      ManagedChannel channel = channel(TernChannelBuilder.forAddress("127.0.0.1", listener.getLocalPort())
          .keepAliveTime(10, TimeUnit.SECONDS).keepAliveTimeout(5, TimeUnit.SECONDS).keepAliveWithoutCalls(true));

      channel.getState(true); // connects, with no call ever made

      RawHttp2Peer.Frame received = ping.get(45, TimeUnit.SECONDS);
      assertThat(received.ack()).isFalse();
      assertThat(seen).as("no stream was opened: every frame on stream 0").allMatch(f -> f.stream() == 0);
    }
  }
}
