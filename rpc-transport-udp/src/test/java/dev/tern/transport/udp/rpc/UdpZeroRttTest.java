package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernServerCalls;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ForwardingSessionStore;
import dev.tern.rpc.spi.SessionStore;
import dev.tern.rpc.spi.SessionStores;
import dev.tern.conformance.Utf8;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.AddressValidation.RetryPolicy;
import dev.tern.transport.udp.handshake.MemoryTicketStore;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 0-RTT through the {@code udp} provider over loopback sockets (docs/protocol.md §9.10): the first
 * channel's connection earns a ticket, which the client keeps in the channel's session store; a
 * second channel takes it, resumes, and its first idempotent call goes in early data (the server
 * call sees it arrived early, and both sides count the acceptance); a non-idempotent call on a
 * resumed connection does not go early.
 */
@Timeout(60)
class UdpZeroRttTest {
  private static final MethodDescriptor.Marshaller<String> UTF8 = Utf8.MARSHALLER;
  static final MethodDescriptor<String, String> IDEMPOTENT = method("Idempotent", true);
  private static final MethodDescriptor<String, String> PLAIN = method("Plain", false);

  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  /**
   * Counts the tickets the transports put in and take out (address-validation tokens, kind
   * {@code udp.token}, are kept in the same store and not counted).
   */
  static final class CountingStore extends ForwardingSessionStore {
    final AtomicInteger added = new AtomicInteger();
    final AtomicInteger taken = new AtomicInteger();
    /** False: address-validation tokens are not kept (the next connection draws a Retry). */
    volatile boolean keepTokens = true;

    CountingStore() {
      this(SessionStores.inMemory(64));
    }

    CountingStore(SessionStore inner) {
      super(inner);
    }

    @Override
    public void add(String server, String kind, byte[] value, long expiresAtMillis) {
      if (!keepTokens && kind.equals(UdpTokens.KIND)) {
        return;
      }
      super.add(server, kind, value, expiresAtMillis);
      if (kind.equals(UdpTransportOptions.TICKET_KIND)) {
        added.incrementAndGet();
      }
    }

    @Override
    public byte[] take(String server, String kind, long nowMillis) {
      byte[] b = super.take(server, kind, nowMillis);
      if (b != null && kind.equals(UdpTransportOptions.TICKET_KIND)) {
        taken.incrementAndGet();
      }
      return b;
    }
  }

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

  @Test
  void aResumedChannelsFirstIdempotentCallGoesInEarlyDataAndOthersDoNot() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    MemoryTicketStore tickets = new MemoryTicketStore(System::currentTimeMillis,
        new SecureRandom(), 3_600_000, 10_000);
    Server server = TernServerBuilder.create().addTransportProvider(new UdpTransportProvider())
        .listen(UdpTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerServiceDefinition.builder("zerortt.Test")
            .addMethod(IDEMPOTENT, earlyOrNot()).addMethod(PLAIN, earlyOrNot()).build())
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, Loopback.SERVER_KEY)
        .transportOption(UdpTransportOptions.TICKET_STORE, tickets)
        .metrics(metrics, "server").build().start();
    servers.add(server);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    CountingStore store = new CountingStore();

    ManagedChannel first = channel(metrics, "first", port, store);
    assertThat(call(first, IDEMPOTENT)).isEqualTo("early=false"); // no ticket yet
    await(() -> store.added.get() == 1,
        () -> "tickets stored " + store.added.get() + ", issued " + tickets.issued());
    assertThat(tickets.issued()).isEqualTo(1);

    ManagedChannel second = channel(metrics, "second", port, store);
    assertThat(call(second, IDEMPOTENT)).isEqualTo("early=true");
    assertThat(store.taken.get()).isEqualTo(1);
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "server",
        UdpTransportProvider.NAME);
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, "second",
        UdpTransportProvider.NAME);
    await(() -> s.earlyDataAccepted() == 1,
        () -> "server accepted early data " + s.earlyDataAccepted() + " times");
    assertThat(c.earlyDataAccepted()).isEqualTo(1);
    assertThat(s.earlyDataRejected() + c.earlyDataRejected()).isZero();
    assertThat(TernChannels.connectionInfo(second).earlyDataAccepted())
        .as("the resumed channel's connection info").isTrue();
    assertThat(TernChannels.connectionInfo(first).earlyDataAccepted())
        .as("the first channel's connection info (no ticket)").isFalse();

    // The second connection earned a ticket too; a third channel resumes with it, but its
    // non-idempotent call waits for the handshake: not early.
    await(() -> store.added.get() == 2,
        () -> "tickets stored " + store.added.get() + ", issued " + tickets.issued());
    ManagedChannel third = channel(metrics, "third", port, store);
    assertThat(call(third, PLAIN)).isEqualTo("early=false");
    assertThat(store.taken.get()).isEqualTo(2);
    assertThat(s.refusals()).as("nothing refused as replayable").isEmpty();
  }

  /**
   * A server that always sends a Retry: the resuming client's first datagram (INITIAL and 0-RTT)
   * draws a Retry that keeps nothing of it; the client sends its INITIAL again with the token and
   * its 0-RTT packets again, so the idempotent call still arrives in early data, once.
   */
  @Test
  void aResumptionThroughARetryCompletesItsEarlyCall() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = TernServerBuilder.create().addTransportProvider(new UdpTransportProvider())
        .listen(UdpTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerServiceDefinition.builder("zerortt.Test")
            .addMethod(IDEMPOTENT, earlyOrNot()).addMethod(PLAIN, earlyOrNot()).build())
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, Loopback.SERVER_KEY)
        .transportOption(UdpTransportOptions.RETRY_POLICY, RetryPolicy.ALWAYS)
        .metrics(metrics, "server").build().start();
    servers.add(server);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    CountingStore store = new CountingStore();
    store.keepTokens = false; // without the first connection's token, the next draws a Retry
    ManagedChannel first = channel(metrics, "first", port, store);
    assertThat(call(first, IDEMPOTENT)).isEqualTo("early=false");
    await(() -> store.added.get() == 1, () -> "tickets stored " + store.added.get());

    ManagedChannel second = channel(metrics, "second", port, store);
    String answer = call(second, IDEMPOTENT);
    assertThat(store.taken.get()).as("the second connection resumed").isEqualTo(1);
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "server",
        UdpTransportProvider.NAME);
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, "second",
        UdpTransportProvider.NAME);
    await(() -> s.earlyDataAccepted() + s.earlyDataRejected() == 1,
        () -> "server early data accepted " + s.earlyDataAccepted() + ", rejected "
            + s.earlyDataRejected());
    System.out.println("UdpZeroRttTest: through a Retry the call answered " + answer
        + "; early data accepted by the server " + s.earlyDataAccepted() + ", by the client "
        + c.earlyDataAccepted());
    assertThat(c.earlyDataAccepted()).isEqualTo(1);
    assertThat(s.earlyDataAccepted()).isEqualTo(1);
    // Each connection drew at least one Retry (its first INITIAL and that INITIAL's copy may
    // draw one each), counted in the server's metrics.
    assertThat(s.retriesSent()).isGreaterThanOrEqualTo(2);
    // The 0-RTT packets the Retry dropped were sent again in 0-RTT (RFC 9000 §17.2.5.3), not
    // held for the handshake.
    assertThat(answer).isEqualTo("early=true");
  }

  /**
   * The client application is a process that exits and starts again: the second process resumes
   * from the ticket the first left in its session-store file, its first idempotent call goes in
   * early data, and the server counts the early data it accepted.
   */
  @Test
  @Timeout(120)
  void aClientProcessThatExitsAndStartsAgainResumesInEarlyData(@TempDir Path dir)
      throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = zeroRttServer(metrics);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    Path file = dir.resolve("sessions");
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "server",
        UdpTransportProvider.NAME);

    // Each process first warms up with a resumption of its own (ZeroRttClientProcess says why),
    // which the server counts too: one acceptance per process, plus the second process's call.
    assertThat(ZeroRttClientProcess.run(port, file)).isEqualTo("early=false tickets=1");
    await(() -> s.earlyDataAccepted() == 1,
        () -> "server accepted early data " + s.earlyDataAccepted() + " times");
    assertThat(ZeroRttClientProcess.run(port, file)).startsWith("early=true ");
    await(() -> s.earlyDataAccepted() == 3,
        () -> "server accepted early data " + s.earlyDataAccepted() + " times");
    assertThat(s.earlyDataRejected()).isZero();
  }

  /**
   * A modified client marks a method idempotent that the server's own descriptor does not, and
   * sends a call to it in early data: the server refuses it (an attacker could replay it) with the
   * status docs/errors.md names, counts the refusal, and the handler never runs.
   */
  @Test
  void aNonIdempotentCallSentAsEarlyDataByAModifiedClientIsRefusedByTheServer() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = zeroRttServer(metrics);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    CountingStore store = new CountingStore();
    assertThat(call(channel(metrics, "first", port, store), IDEMPOTENT)).isEqualTo("early=false");
    await(() -> store.added.get() == 1, () -> "tickets stored " + store.added.get());

    MethodDescriptor<String, String> forged = method("Plain", true); // the server says false
    ManagedChannel forger = channel(metrics, "forger", port, store);
    Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() -> call(forger, forged));
    Status status = Status.fromThrowable(refused);
    assertThat(status.getCode()).as("%s", status).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("zerortt.Test/Plain", "early data",
        "not idempotent");
    assertThat(store.taken.get()).as("the forger resumed").isEqualTo(1);
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "server",
        UdpTransportProvider.NAME);
    assertThat(s.earlyDataAccepted()).as("the forger's early data reached the server").isEqualTo(1);
    assertThat(s.refusals()).as("refusals the server counted")
        .containsEntry(TransportEvents.EARLY_DATA_NOT_REPLAY_SAFE, 1L);
    assertThat(plainCalls.get()).as("the handler of the non-idempotent method ran").isZero();
  }

  /** Calls the handler of the non-idempotent method saw, early or not. */
  private final AtomicInteger plainCalls = new AtomicInteger();

  private Server zeroRttServer(TernMetrics metrics) throws java.io.IOException {
    ServerCallHandler<String, String> plain = earlyOrNot();
    Server server = TernServerBuilder.create().addTransportProvider(new UdpTransportProvider())
        .listen(UdpTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerServiceDefinition.builder("zerortt.Test")
            .addMethod(IDEMPOTENT, earlyOrNot())
            .addMethod(PLAIN, (call, headers) -> {
              plainCalls.incrementAndGet();
              return plain.startCall(call, headers);
            }).build())
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, Loopback.SERVER_KEY)
        .metrics(metrics, "server").build().start();
    servers.add(server);
    return server;
  }

  /**
   * The client application restarts between two connections: its tickets are in a file-backed
   * session store, and the restarted application (a new store on the same file) resumes and sends
   * its first idempotent call in early data. The used ticket is gone from the file.
   */
  @Test
  void aClientRestartedWithAFileStoreResumesInEarlyData(@TempDir Path dir) throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = TernServerBuilder.create().addTransportProvider(new UdpTransportProvider())
        .listen(UdpTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerServiceDefinition.builder("zerortt.Test")
            .addMethod(IDEMPOTENT, earlyOrNot()).addMethod(PLAIN, earlyOrNot()).build())
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, Loopback.SERVER_KEY)
        .metrics(metrics, "server").build().start();
    servers.add(server);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    Path file = dir.resolve("sessions");

    CountingStore before = new CountingStore(SessionStores.file(file, 64));
    ManagedChannel first = channel(metrics, "before", port, before);
    assertThat(call(first, IDEMPOTENT)).isEqualTo("early=false");
    await(() -> before.added.get() == 1, () -> "tickets stored " + before.added.get());
    first.shutdownNow();
    assertThat(first.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

    // The restart: nothing of the first store is left but its file.
    CountingStore after = new CountingStore(SessionStores.file(file, 64));
    ManagedChannel second = channel(metrics, "after", port, after);
    assertThat(call(second, IDEMPOTENT)).isEqualTo("early=true");
    assertThat(after.taken.get()).as("the ticket read back from the file").isEqualTo(1);
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "server",
        UdpTransportProvider.NAME);
    await(() -> s.earlyDataAccepted() == 1,
        () -> "server accepted early data " + s.earlyDataAccepted() + " times");
  }

  private ManagedChannel channel(TernMetrics metrics, String name, int port, SessionStore store) {
    ManagedChannel c = TernChannelBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .addTransportProvider(new UdpTransportProvider()).transports(UdpTransportProvider.NAME)
        .usePlaintext().transportOption(UdpTransportOptions.PINNED_SERVER_KEY, Loopback.PIN)
        .transportOption(TransportOptions.SESSION_STORE, store).metrics(metrics, name).build();
    channels.add(c);
    return c;
  }

  static MethodDescriptor<String, String> method(String name, boolean idempotent) {
    return MethodDescriptor.<String, String>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("zerortt.Test/" + name)
        .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).setIdempotent(idempotent)
        .build();
  }

  /** Answers whether the call's request arrived in early data. */
  private static ServerCallHandler<String, String> earlyOrNot() {
    return (call, headers) -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        @Override
        public void onHalfClose() {
          Boolean early = call.getAttributes().get(TernServerCalls.EARLY_DATA_ATTR);
          call.sendHeaders(new Metadata());
          call.sendMessage("early=" + early);
          call.close(Status.OK, new Metadata());
        }
      };
    };
  }

  static String call(ManagedChannel channel, MethodDescriptor<String, String> method)
      throws Exception {
    CompletableFuture<String> result = new CompletableFuture<>();
    ClientCall<String, String> call = channel.newCall(method,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    call.start(new ClientCall.Listener<>() {
      private String response;

      @Override
      public void onMessage(String message) {
        response = message;
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        if (status.isOk()) {
          result.complete(response);
        } else {
          result.completeExceptionally(status.asRuntimeException());
        }
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage("request");
    call.halfClose();
    return result.get(30, TimeUnit.SECONDS);
  }

  /** Waits up to 10 s for {@code condition}; failing, says what {@code state} then was. */
  private static void await(BooleanSupplier condition, Supplier<String> state) {
    Awaitility.await().atMost(10, TimeUnit.SECONDS).pollInterval(10, TimeUnit.MILLISECONDS)
        .untilAsserted(() -> assertThat(condition.getAsBoolean()).as("%s", state.get()).isTrue());
  }
}
