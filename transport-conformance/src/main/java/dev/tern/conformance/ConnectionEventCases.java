package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.ServerTransportListener;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Connection events ({@link ServerTransportListener#connectionCreated}), end to end through a
 * server's {@link ServerTransportFilter}: each connection is shown ready once, with its remote
 * address, and terminated once, also when the server shuts down under it; and calls carry what
 * the filter made of the connection's attributes.
 */
public abstract class ConnectionEventCases extends CodecCases {
  /** The attribute the recording filter adds: a name for the connection. */
  static final Attributes.Key<String> CONNECTION_NAME = Attributes.Key.create("conformance.connection");

  /** Names each ready connection and records both events. */
  static final class RecordingFilter extends ServerTransportFilter {
    final AtomicInteger readies = new AtomicInteger();
    final List<Attributes> readyAttributes = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> terminations = new ConcurrentHashMap<>();
    final Map<String, CompletableFuture<Void>> terminated = new ConcurrentHashMap<>();
    final List<String> unnamedTerminations = new CopyOnWriteArrayList<>();

    @Override
    public Attributes transportReady(Attributes attrs) {
      String name = "connection-" + readies.incrementAndGet();
      readyAttributes.add(attrs);
      terminated(name);
      return attrs.toBuilder().set(CONNECTION_NAME, name).build();
    }

    @Override
    public void transportTerminated(Attributes attrs) {
      String name = attrs == null ? null : attrs.get(CONNECTION_NAME);
      if (name == null) {
        unnamedTerminations.add(String.valueOf(attrs));
        return;
      }
      terminations.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
      terminated(name).complete(null);
    }

    CompletableFuture<Void> terminated(String name) {
      return terminated.computeIfAbsent(name, n -> new CompletableFuture<>());
    }
  }

  /**
   * Case: a transport filter sees each connection ready exactly once, with the remote address,
   * local address and transport name, and terminated exactly once (one channel shut down, then the
   * server shut down under the other); every call on a connection carries the name the filter
   * gave that connection.
   */
  @Test
  protected void transportFilterSeesEachConnectionOnceEachWayAndCallsCarryItsAttributes() throws Exception {
    RecordingFilter filter = new RecordingFilter();
    List<Attributes> callAttributes = new CopyOnWriteArrayList<>();
    ServerInterceptor capture = new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call,
          io.grpc.Metadata headers, io.grpc.ServerCallHandler<ReqT, RespT> next) {
        callAttributes.add(call.getAttributes());
        return next.startCall(call, headers);
      }
    };
    Server server = track(configureServer(TernServerBuilder.create().addTransportProvider(provider)
        .listen(provider.name(), newServerAddress()).addService(new StringService().definition())
        .addTransportFilter(filter).intercept(capture)).build().start());
    SocketAddress address = server.getListenSockets().get(0);
    ManagedChannel first = channelTo(address);
    ManagedChannel second = channelTo(address);
    for (ManagedChannel ch : List.of(first, first, second, second)) {
      assertThat(StringService.call(ch, StringService.ECHO, CallOptions.DEFAULT, "hi", timeout().toMillis()))
          .isEqualTo("hi");
    }
    assertThat(filter.readies.get()).as("connections shown ready (two channels)").isEqualTo(2);
    for (Attributes a : filter.readyAttributes) {
      assertThat(a.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).as("remote address in %s", a).isNotNull();
      assertThat(a.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR)).as("local address in %s", a).isNotNull();
      assertThat(a.get(ConnectionAttributes.TRANSPORT)).as("transport in %s", a).isEqualTo(provider.name());
      assertThat(a.get(ConnectionAttributes.SECURITY_LEVEL)).as("security level in %s", a).isNotNull();
    }
    assertThat(callAttributes).hasSize(4);
    String firstName = callAttributes.get(0).get(CONNECTION_NAME);
    String secondName = callAttributes.get(2).get(CONNECTION_NAME);
    assertThat(firstName).as("the filter's attribute on the first call").isNotNull();
    assertThat(callAttributes.get(1).get(CONNECTION_NAME)).as("the first channel's second call").isEqualTo(firstName);
    assertThat(secondName).as("the second channel's connection").isNotNull().isNotEqualTo(firstName);
    assertThat(callAttributes.get(3).get(CONNECTION_NAME)).as("the second channel's second call").isEqualTo(secondName);
    for (Attributes a : callAttributes) {
      assertThat(a.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).as("a call's remote address").isNotNull();
    }

    first.shutdownNow();
    assertThat(first.awaitTermination(timeout().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    await(filter.terminated(firstName), "transportTerminated of the first channel's connection");
    assertThat(filter.terminated(secondName)).as("the second connection, still open").isNotDone();

    server.shutdownNow();
    assertThat(server.awaitTermination(timeout().toMillis(), TimeUnit.MILLISECONDS)).as("server terminated").isTrue();
    // Every connection is reported terminated before the server terminates.
    assertThat(filter.terminated(secondName)).as("the second connection, after the server shut down").isDone();
    assertThat(filter.readies.get()).as("no connection shown ready twice").isEqualTo(2);
    assertThat(filter.terminations).as("terminations per connection")
        .containsOnlyKeys(firstName, secondName)
        .allSatisfy((name, count) -> assertThat(count.get()).as("terminations of %s", name).isEqualTo(1));
    assertThat(filter.unnamedTerminations).as("terminations of connections never shown ready").isEmpty();
  }

  /**
   * A real socket that takes a connection and never answers its handshake, for this transport: a
   * TCP listener for {@code tcp}, a bound UDP socket for the datagram transports; null for a
   * transport without a handshake on a socket (in-process). Closed after the case.
   */
  protected AutoCloseable silentPeer() throws java.io.IOException {
    if (provider.name().equals("tcp")) {
      // The kernel completes the TCP handshake from the backlog; nothing ever reads or writes.
      return new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    }
    if (provider.name().equals("quic") || provider.name().equals("udp")) {
      return java.nio.channels.DatagramChannel.open()
          .bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
    }
    return null;
  }

  private static SocketAddress addressOf(AutoCloseable peer) throws java.io.IOException {
    return peer instanceof java.net.ServerSocket ? ((java.net.ServerSocket) peer).getLocalSocketAddress()
        : ((java.nio.channels.DatagramChannel) peer).getLocalAddress();
  }

  /**
   * Case: a channel's handshakeTimeout ends a connect to a peer that takes the connection and
   * never answers the handshake: the call fails UNAVAILABLE, naming the timeout, long before the
   * default 20 s.
   */
  @Test
  protected void channelHandshakeTimeoutEndsAConnectToASilentPeer() throws Exception {
    AutoCloseable peer = silentPeer();
    org.junit.jupiter.api.Assumptions.assumeTrue(peer != null,
        "the " + provider.name() + " transport has no handshake over a socket");
    try (AutoCloseable closeMe = peer) {
      SocketAddress address = addressOf(peer);
      ManagedChannel channel = track(configureChannel(TernChannelBuilder.forAddress(address)
          .addTransportProvider(provider).transports(provider.name()).overrideAuthority(authorityFor(address))
          .handshakeTimeout(500, TimeUnit.MILLISECONDS)).build());
      long startNs = System.nanoTime();
      Throwable failure = null;
      try {
        StringService.call(channel, StringService.ECHO, CallOptions.DEFAULT, "x", timeout().toMillis());
      } catch (io.grpc.StatusRuntimeException e) {
        failure = e;
      }
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
      assertThat(failure).as("the call to a silent peer").isInstanceOf(io.grpc.StatusRuntimeException.class);
      io.grpc.Status status = ((io.grpc.StatusRuntimeException) failure).getStatus();
      assertThat(status.getCode()).as("status %s", status).isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).as("status %s", status).contains("500 ms");
      assertThat(tookMs).as("failed by the 500 ms handshake timeout").isLessThan(10_000);
    }
  }

  private ManagedChannel channelTo(SocketAddress address) {
    return track(configureChannel(TernChannelBuilder.forAddress(address).addTransportProvider(provider)
        .transports(provider.name()).overrideAuthority(authorityFor(address))).build());
  }
}
