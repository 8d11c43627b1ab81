package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.TestCertificates;
import dev.tern.conformance.Utf8;
import dev.tern.rpc.AltSvc;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernServerCalls;
import dev.tern.rpc.TransportMemory;
import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.SessionStore;
import dev.tern.rpc.spi.SessionStores;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.quic.QuicTransportProvider;
import dev.tern.transport.tcp.TcpTransportProvider;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import dev.tern.transport.udp.rpc.UdpTransportProvider;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's advertisement ({@code alt-svc}, docs/transport-choice.md) on real sockets: a
 * client that knows only the server's TCP port and no {@code udp} key talks TCP first, learns the
 * server's {@code udp} (on another port, with its key) or {@code quic} listener from the response
 * headers, and opens its next connection over it; after a restart (a new memory and ticket store
 * read back from their file) it resumes over {@code udp} with 0-RTT. A key heard over plaintext,
 * or a field that does not parse, teaches nothing and harms no call.
 */
@Timeout(90)
class TransportAdvertisementTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  /** Idempotent, so a resumed {@code udp} connection may carry it as early data. */
  private static final MethodDescriptor<String, String> WHERE = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("advert.Test/Where")
      .setRequestMarshaller(Utf8.MARSHALLER).setResponseMarshaller(Utf8.MARSHALLER)
      .setIdempotent(true).build();

  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Server> servers = new ArrayList<>();
  @TempDir
  Path dir;

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Answers with the transport that carried the call and whether it came as early data. */
  private static ServerServiceDefinition where() {
    ServerCallHandler<String, String> handler = (call, headers) -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        @Override
        public void onHalfClose() {
          String transport = call.getAttributes().get(ConnectionAttributes.TRANSPORT);
          Boolean early = call.getAttributes().get(TernServerCalls.EARLY_DATA_ATTR);
          call.sendHeaders(new Metadata());
          call.sendMessage(transport + " early=" + early);
          call.close(Status.OK, new Metadata());
        }
      };
    };
    return ServerServiceDefinition.builder("advert.Test").addMethod(WHERE, handler).build();
  }

  /** A Tern server on TLS: {@code tcp} on one port, and each of {@code others} on another. */
  private Server server(byte[] udpKey, String... others) throws Exception {
    for (int attempt = 0; ; attempt++) {
      TernServerBuilder b = TernServerBuilder.create().tls(CERTS.server()).addService(where())
          .addTransportProvider(new TcpTransportProvider()).addTransportProvider(new UdpTransportProvider())
          .addTransportProvider(new QuicTransportProvider())
          .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpKey)
          .listen("tcp", new InetSocketAddress("127.0.0.1", 0));
      for (String other : others) {
        b.listen(other, new InetSocketAddress("127.0.0.1", 0));
      }
      Server s = b.build().start();
      boolean apart = true;
      for (int i = 1; i <= others.length; i++) {
        apart &= port(s, 0) != port(s, i);
      }
      if (apart || attempt == 5) {
        servers.add(s);
        return s;
      }
      s.shutdownNow(); // the same number for both: the test is of a different port
    }
  }

  private static int port(Server s, int i) {
    return ((InetSocketAddress) s.getListenSockets().get(i)).getPort();
  }

  private ManagedChannel channel(int tcpPort, TransportMemory memory, SessionStore tickets, String... transports) {
    TernChannelBuilder b = TernChannelBuilder.forAddress("127.0.0.1", tcpPort).tls(CERTS.client())
        .transportMemory(memory).transportRaceHeadStart(300, TimeUnit.MILLISECONDS);
    if (tickets != null) {
      b.transportOption(TransportOptions.SESSION_STORE, tickets);
    }
    if (transports.length > 0) {
      b.transports(transports);
    }
    ManagedChannel c = b.build();
    channels.add(c);
    return c;
  }

  private static String call(ManagedChannel channel) throws Exception {
    CompletableFuture<String> result = new CompletableFuture<>();
    ClientCall<String, String> call = channel.newCall(WHERE, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    AtomicReference<String> response = new AtomicReference<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(String message) {
        response.set(message);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        if (status.isOk()) {
          result.complete(response.get());
        } else {
          result.completeExceptionally(status.asRuntimeException());
        }
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage("where?");
    call.halfClose();
    return result.get(40, TimeUnit.SECONDS);
  }

  @Test
  void aClientThatFirstTalksTcpMovesToTheAdvertisedUdpPortAndResumesWithZeroRttAfterARestart() throws Exception {
    byte[] key = UdpTransportOptions.newServerKey();
    Server server = server(key, "udp");
    int tcpPort = port(server, 0);
    int udpPort = port(server, 1);
    String authority = "127.0.0.1:" + tcpPort;
    Path file = dir.resolve("app-state");

    // First contact: no udp key, so only tcp can be raced.
    TicketCounter store = new TicketCounter(SessionStores.file(file, 16));
    TransportMemory memory = TransportMemory.builder().sessionStore(store).build();
    ManagedChannel first = channel(tcpPort, memory, store);
    assertThat(call(first)).isEqualTo("tcp early=false");
    AltSvc.Alternative learnt = memory.advertisement(authority, "udp");
    assertThat(learnt).as("what the tcp response advertised").isNotNull();
    assertThat(learnt.port()).isEqualTo(udpPort);
    assertThat(learnt.parameters().get("key"))
        .isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(UdpTransportOptions.publicKeyOf(key)));
    assertThat(learnt.persist()).isTrue();

    // The next connection goes over udp, to the advertised port, with the advertised key.
    ManagedChannel second = channel(tcpPort, memory, store);
    assertThat(call(second)).isEqualTo("udp early=false");
    assertThat(TernChannels.selectedTransport(second)).isEqualTo("udp");
    assertThat(TernChannels.selectionReason(second))
        .contains("on port " + udpPort + " as the server advertised");
    // Its connection earns a resumption ticket, kept in the file.
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> store.tickets.get() > 0);
    second.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    first.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);

    // A restart: everything read back from the file. udp straight away, the call as early data.
    SessionStore reread = SessionStores.file(file, 16);
    TransportMemory restarted = TransportMemory.builder().sessionStore(reread).build();
    assertThat(restarted.advertisement(authority, "udp")).isEqualTo(learnt);
    assertThat(restarted.lastWorked(authority)).isEqualTo("udp");
    ManagedChannel third = channel(tcpPort, restarted, reread);
    assertThat(call(third)).isEqualTo("udp early=true");
    assertThat(TernChannels.connectionInfo(third).earlyDataAccepted()).isTrue();
  }

  @Test
  void aClientLearnsTheQuicPortFromTcpAndItsNextConnectionIsQuic() throws Exception {
    Server server = server(UdpTransportOptions.newServerKey(), "quic", "udp");
    int tcpPort = port(server, 0);
    int quicPort = port(server, 1);
    String authority = "127.0.0.1:" + tcpPort;
    TransportMemory memory = TransportMemory.builder().build();
    // quic is raced first on the TCP port, where nothing answers it; tcp wins and advertises quic.
    assertThat(call(channel(tcpPort, memory, null))).isEqualTo("tcp early=false");
    assertThat(memory.advertisement(authority, "quic").port()).isEqualTo(quicPort);
    assertThat(memory.advertisement(authority, "quic").protocolId()).isEqualTo("h3");
    assertThat(memory.isBroken(authority, "quic"))
        .as("a mark earned on the port quic was never advertised on is cleared by the advertisement").isFalse();
    // A channel that names quic and tcp (the server's udp is advertised too, but not named).
    ManagedChannel next = channel(tcpPort, memory, null, "quic", "tcp");
    assertThat(call(next)).isEqualTo("quic early=false");
    assertThat(TernChannels.selectionReason(next)).contains("on port " + quicPort + " as the server advertised");
    // Answers over quic advertise udp only (the server lists what is better than the carrier):
    // what was learnt of quic's own port stays.
    assertThat(memory.advertisement(authority, "udp")).isNotNull();
    assertThat(memory.advertisement(authority, "quic")).as("after a call over quic").isNotNull();
  }

  @Test
  void aServerAdvertisesOnlyOverTlsAndOnlyWhenAllowed() throws Exception {
    byte[] key = UdpTransportOptions.newServerKey();
    Server tls = server(key, "udp");
    Server quiet = TernServerBuilder.create().tls(CERTS.server()).addService(where()).advertiseTransports(false)
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, key)
        .listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .listen("udp", new InetSocketAddress("127.0.0.1", 0)).build().start();
    servers.add(quiet);
    Server plaintext = TernServerBuilder.create().addService(where())
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, key)
        .listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .listen("udp", new InetSocketAddress("127.0.0.1", 0)).build().start();
    servers.add(plaintext);

    assertThat(advertisedTo(TernChannelBuilder.forAddress("127.0.0.1", port(tls, 0)).tls(CERTS.client())))
        .startsWith("tern-udp=\":" + port(tls, 1) + "\"; ma=86400; persist=1; key=");
    assertThat(advertisedTo(TernChannelBuilder.forAddress("127.0.0.1", port(quiet, 0)).tls(CERTS.client())))
        .isNull();
    assertThat(advertisedTo(TernChannelBuilder.forAddress("127.0.0.1", port(plaintext, 0)).usePlaintext()))
        .isNull();
  }

  /** The alt-svc a call's response headers carried from the server {@code b} points at, over tcp. */
  private String advertisedTo(TernChannelBuilder b) throws Exception {
    AtomicReference<String> seen = new AtomicReference<>();
    ManagedChannel c = b.transports("tcp").transportMemory(TransportMemory.builder().build())
        .intercept(new io.grpc.ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options,
              io.grpc.Channel next) {
            return new io.grpc.ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
              @Override
              public void start(Listener<R> listener, Metadata headers) {
                super.start(new io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                  @Override
                  public void onHeaders(Metadata h) {
                    seen.set(h.get(AltSvc.KEY));
                    super.onHeaders(h);
                  }
                }, headers);
              }
            };
          }
        }).build();
    channels.add(c);
    assertThat(call(c)).isEqualTo("tcp early=false");
    return seen.get();
  }

  /**
   * A stock grpc-java server (grpc-netty) whose responses carry {@code value} as alt-svc, over TLS
   * or plaintext.
   */
  private Server stockServer(boolean tls, String value) throws Exception {
    ServerInterceptor advertise = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
          @Override
          public void sendHeaders(Metadata h) {
            h.put(AltSvc.KEY, value);
            super.sendHeaders(h);
          }
        }, headers);
      }
    };
    ServerCallHandler<String, String> handler = (call, headers) -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        @Override
        public void onHalfClose() {
          call.sendHeaders(new Metadata());
          call.sendMessage("stock");
          call.close(Status.OK, new Metadata());
        }
      };
    };
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerInterceptors.intercept(
            ServerServiceDefinition.builder("advert.Test").addMethod(WHERE, handler).build(), advertise));
    if (tls) {
      b.sslContext(GrpcSslContexts.forServer(new ByteArrayInputStream(CERTS.certificatePem()),
          new ByteArrayInputStream(CERTS.privateKeyPem())).build());
    }
    Server s = b.build().start();
    servers.add(s);
    return s;
  }

  /**
   * Against a stock grpc-java server that sends an alt-svc naming a Tern udp server's port and key:
   * over plaintext the client learns nothing (anyone on the path could have written it); a field
   * that does not parse is ignored; over TLS the client learns it and its next connection goes to
   * that udp server. Every call succeeds.
   */
  @Test
  void aStockServersAdvertisementIsLearntOnlyOverTlsAndAMalformedOneHarmsNothing() throws Exception {
    byte[] key = UdpTransportOptions.newServerKey();
    Server udp = TernServerBuilder.create().addService(where())
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, key)
        .listen("udp", new InetSocketAddress("127.0.0.1", 0)).build().start();
    servers.add(udp);
    String value = "tern-udp=\":" + port(udp, 0) + "\"; ma=3600; key="
        + Base64.getUrlEncoder().withoutPadding().encodeToString(UdpTransportOptions.publicKeyOf(key))
        + "; kid=1; v=544e0002; rpc=1";

    Server plain = stockServer(false, value);
    TransportMemory memory = TransportMemory.builder().build();
    ManagedChannel overPlaintext = TernChannelBuilder.forAddress("127.0.0.1", port(plain, 0)).usePlaintext()
        .transportMemory(memory).build();
    channels.add(overPlaintext);
    assertThat(call(overPlaintext)).isEqualTo("stock");
    assertThat(memory.advertisement("127.0.0.1:" + port(plain, 0), "udp")).isNull();

    Server garbled = stockServer(true, "tern-udp=\":" + port(udp, 0) + "; ma=3600, h3=\":443");
    ManagedChannel toGarbled = channel(port(garbled, 0), memory, null);
    assertThat(call(toGarbled)).isEqualTo("stock");
    assertThat(call(toGarbled)).isEqualTo("stock");
    assertThat(memory.advertisement("127.0.0.1:" + port(garbled, 0), "udp")).isNull();

    Server stock = stockServer(true, value);
    String authority = "127.0.0.1:" + port(stock, 0);
    assertThat(call(channel(port(stock, 0), memory, null))).isEqualTo("stock");
    assertThat(memory.advertisement(authority, "udp").port()).isEqualTo(port(udp, 0));
    assertThat(call(channel(port(stock, 0), memory, null))).isEqualTo("udp early=false");
  }

  /** A store that counts the udp tickets put in it. */
  private static final class TicketCounter extends dev.tern.rpc.spi.ForwardingSessionStore {
    final java.util.concurrent.atomic.AtomicInteger tickets = new java.util.concurrent.atomic.AtomicInteger();

    TicketCounter(SessionStore inner) {
      super(inner);
    }

    @Override
    public void add(String server, String kind, byte[] value, long expiresAtMillis) {
      super.add(server, kind, value, expiresAtMillis);
      if (kind.equals(UdpTransportOptions.TICKET_KIND)) {
        tickets.incrementAndGet();
      }
    }
  }
}
