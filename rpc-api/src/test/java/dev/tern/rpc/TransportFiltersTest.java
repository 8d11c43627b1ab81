package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ClientTransportFilter;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.SecurityLevel;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transport filters: the server's ({@code addTransportFilter}) end to end over the in-process
 * transport, the handshake timeout of a server connection, and the channel's filter chain on its
 * own.
 */
@Timeout(30)
class TransportFiltersTest {
  private static final Attributes.Key<String> A = Attributes.Key.create("test.a");
  private static final Attributes.Key<String> B = Attributes.Key.create("test.b");

  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
  private final Handler logHandler = new Handler() {
    @Override public void publish(LogRecord r) { logged.add(r); }

    @Override public void flush() {}

    @Override public void close() {}
  };

  @AfterEach
  void tearDown() throws Exception {
    Logger.getLogger(TernServer.class.getName()).removeHandler(logHandler);
    Logger.getLogger(TernManagedChannel.class.getName()).removeHandler(logHandler);
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Records the attributes it was given and adds {@code key=value}. */
  private static final class Adding extends ServerTransportFilter {
    final Attributes.Key<String> key;
    final String value;
    final CompletableFuture<Attributes> readyWith = new CompletableFuture<>();
    final AtomicInteger terminations = new AtomicInteger();
    final CompletableFuture<Attributes> terminatedWith = new CompletableFuture<>();

    Adding(Attributes.Key<String> key, String value) {
      this.key = key;
      this.value = value;
    }

    @Override
    public Attributes transportReady(Attributes attrs) {
      readyWith.complete(attrs);
      return attrs.toBuilder().set(key, value).build();
    }

    @Override
    public void transportTerminated(Attributes attrs) {
      terminations.incrementAndGet();
      terminatedWith.complete(attrs);
    }
  }

  private final CompletableFuture<Attributes> callAttributes = new CompletableFuture<>();

  private ManagedChannel serveAndConnect(ServerTransportFilter... filters) throws Exception {
    InProcessAddress address = new InProcessAddress("filters-" + UUID.randomUUID());
    ServerInterceptor capture = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        callAttributes.complete(call.getAttributes());
        return next.startCall(call, headers);
      }
    };
    TernServerBuilder b = TernServerBuilder.create().addTransportProvider(new InProcessTransportProvider())
        .listen(InProcessTransportProvider.NAME, address).addService(TestMethods.service()).intercept(capture);
    for (ServerTransportFilter f : filters) {
      b.addTransportFilter(f);
    }
    servers.add(b.build().start());
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(new InProcessTransportProvider())
        .transports(InProcessTransportProvider.NAME).usePlaintext().build();
    channels.add(channel);
    return channel;
  }

  @Test
  void filtersRunInTheOrderAddedEachGivenWhatTheOneBeforeReturned() throws Exception {
    Adding first = new Adding(A, "first");
    Adding second = new Adding(B, "second");
    ManagedChannel channel = serveAndConnect(first, second);
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "x")).isEqualTo("x");

    Attributes seenByFirst = first.readyWith.get(5, TimeUnit.SECONDS);
    assertThat(seenByFirst.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isInstanceOf(InProcessAddress.class);
    assertThat(seenByFirst.get(ConnectionAttributes.TRANSPORT)).isEqualTo(InProcessTransportProvider.NAME);
    assertThat(seenByFirst.get(ConnectionAttributes.SECURITY_LEVEL)).isEqualTo(SecurityLevel.NONE);
    assertThat(second.readyWith.get(5, TimeUnit.SECONDS).get(A)).as("the second filter's input").isEqualTo("first");
    Attributes onCall = callAttributes.get(5, TimeUnit.SECONDS);
    assertThat(onCall.get(A)).isEqualTo("first");
    assertThat(onCall.get(B)).isEqualTo("second");
    assertThat(onCall.get(TernServerCalls.EARLY_DATA_ATTR)).isFalse();
    assertThat(onCall.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isEqualTo(seenByFirst.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));

    channel.shutdownNow();
    // grpc-java: transportTerminated gets the attributes the last filter returned, for every filter.
    assertThat(first.terminatedWith.get(5, TimeUnit.SECONDS).get(B)).isEqualTo("second");
    assertThat(second.terminatedWith.get(5, TimeUnit.SECONDS).get(B)).isEqualTo("second");
  }

  @Test
  void aFilterThatThrowsOrReturnsNullIsLoggedSkippedAndTheConnectionStaysUp() throws Exception {
    Logger.getLogger(TernServer.class.getName()).addHandler(logHandler);
    ServerTransportFilter throwing = new ServerTransportFilter() {
      @Override
      public Attributes transportReady(Attributes attrs) {
        throw new IllegalStateException("filter bug in ready");
      }

      @Override
      public void transportTerminated(Attributes attrs) {
        throw new IllegalStateException("filter bug in terminated");
      }
    };
    ServerTransportFilter returningNull = new ServerTransportFilter() {
      @Override
      public Attributes transportReady(Attributes attrs) {
        return null;
      }
    };
    Adding last = new Adding(A, "kept");
    ManagedChannel channel = serveAndConnect(throwing, returningNull, last);
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "x")).isEqualTo("x");
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "y")).isEqualTo("y");
    assertThat(last.readyWith.get(5, TimeUnit.SECONDS).get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR))
        .as("the filter after the faulty ones gets the transport's attributes").isNotNull();
    assertThat(callAttributes.get(5, TimeUnit.SECONDS).get(A)).isEqualTo("kept");

    channel.shutdownNow();
    last.terminatedWith.get(5, TimeUnit.SECONDS);
    assertThat(last.terminations.get()).as("the filter after the throwing one still hears the end").isEqualTo(1);
    assertThat(logged).filteredOn(r -> r.getLevel() == Level.WARNING).extracting(LogRecord::getMessage)
        .anySatisfy(m -> assertThat(m).contains("threw in transportReady"))
        .anySatisfy(m -> assertThat(m).contains("returned null from transportReady"))
        .anySatisfy(m -> assertThat(m).contains("threw in transportTerminated"));
  }

  @Test
  void transportTerminatedRunsOnceWhenTheServerShutsDownUnderAnOpenConnection() throws Exception {
    Adding filter = new Adding(A, "a");
    ManagedChannel channel = serveAndConnect(filter);
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "x")).isEqualTo("x");
    Server server = servers.get(0);
    server.shutdownNow();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(filter.terminatedWith).as("reported before the server terminated").isDone();
    channel.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(filter.terminations.get()).isEqualTo(1);
  }

  @Test
  void aConnectionNotReadyWithinTheHandshakeTimeoutIsClosedWithGrpcJavasStatus() throws Exception {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    try {
      Adding filter = new Adding(A, "a");
      CompletableFuture<Status> closedWith = new CompletableFuture<>();
      TransportMetrics metrics = TernMetrics.create().transport(TernMetrics.Side.SERVER, "s", "test");
      ServerConnectionEvents events = ServerConnectionEvents.created(
          new ServerTransportFilters(List.of(filter)), closedWith::complete, timer, 50, metrics);
      assertThat(metrics.handshakesInProgress()).isEqualTo(1);
      Status status = closedWith.get(5, TimeUnit.SECONDS);
      assertThat(status.getCode()).isEqualTo(Status.Code.CANCELLED);
      assertThat(status.getDescription()).isEqualTo("Handshake timeout exceeded");
      assertThat(metrics.handshakesTimedOut()).isEqualTo(1);
      events.connectionTerminated();
      assertThat(filter.readyWith).as("never shown ready").isNotDone();
      assertThat(filter.terminations.get()).as("so never shown terminated").isZero();
      assertThat(metrics.handshakesFailed()).isEqualTo(1);
      assertThat(metrics.handshakesInProgress()).isZero();
      assertThat(metrics.connectionsOpened()).isZero();
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void aConnectionReadyInTimeHasItsHandshakeTimerCancelled() throws Exception {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    timer.setRemoveOnCancelPolicy(true);
    try {
      List<Status> closes = new CopyOnWriteArrayList<>();
      TransportMetrics metrics = TernMetrics.create().transport(TernMetrics.Side.SERVER, "s", "test");
      ServerConnectionEvents events = ServerConnectionEvents.created(
          new ServerTransportFilters(List.of()), closes::add, timer, TimeUnit.HOURS.toMillis(1), metrics);
      assertThat(timer.getQueue()).as("the armed handshake timer").hasSize(1);
      Attributes in = Attributes.newBuilder().set(A, "x").build();
      assertThat(events.connectionReady(in)).as("no filters: the attributes as given").isSameAs(in);
      assertThat(timer.getQueue()).as("timer cancelled by the handshake's end").isEmpty();
      assertThat(closes).isEmpty();
      assertThat(metrics.handshakesSucceeded()).isEqualTo(1);
      assertThat(metrics.connections()).isEqualTo(1);
      events.connectionTerminated();
      assertThat(metrics.connections()).isZero();
      assertThat(metrics.handshakesTimedOut()).isZero();
    } finally {
      timer.shutdownNow();
    }
  }

  /** A client filter that records both events. */
  private static final class ClientRecording extends ClientTransportFilter {
    final List<Attributes> ready = new CopyOnWriteArrayList<>();
    final List<Attributes> terminated = new CopyOnWriteArrayList<>();
    final String value;

    ClientRecording(String value) {
      this.value = value;
    }

    @Override
    public Attributes transportReady(Attributes attrs) {
      ready.add(attrs);
      return attrs.toBuilder().set(A, value).build();
    }

    @Override
    public void transportTerminated(Attributes attrs) {
      terminated.add(attrs);
    }
  }

  @Test
  void clientFiltersChainOnceEachWayPerTransport() {
    Logger.getLogger(TernManagedChannel.class.getName()).addHandler(logHandler);
    ClientRecording first = new ClientRecording("first");
    ClientTransportFilter throwing = new ClientTransportFilter() {
      @Override
      public Attributes transportReady(Attributes attrs) {
        throw new IllegalStateException("client filter bug");
      }
    };
    ClientRecording last = new ClientRecording("last");
    ClientTransportFilters filters = new ClientTransportFilters(List.of(first, throwing, last));
    InProcessAddress server = new InProcessAddress("client-filters-" + UUID.randomUUID());
    ClientTransport transport = new InProcessTransportProvider().newClientTransport(server, "a", TransportOptions.defaults());
    ClientTransport other = new InProcessTransportProvider().newClientTransport(server, "a", TransportOptions.defaults());
    ConnectionInfo info = ConnectionInfo.builder("inprocess").remoteAddress(server).build();

    filters.terminated(other); // never ready: nothing to end
    Attributes out = filters.ready(transport, info, SecurityLevel.NONE);
    assertThat(filters.ready(transport, info, SecurityLevel.NONE)).as("a second ready").isSameAs(out);
    assertThat(out.get(A)).isEqualTo("last");
    assertThat(first.ready).hasSize(1);
    assertThat(first.ready.get(0).get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isEqualTo(server);
    assertThat(first.ready.get(0).get(ConnectionAttributes.TRANSPORT)).isEqualTo("inprocess");
    assertThat(first.ready.get(0).get(ConnectionAttributes.SECURITY_LEVEL)).isEqualTo(SecurityLevel.NONE);
    assertThat(last.ready).hasSize(1);
    assertThat(last.ready.get(0).get(A)).as("the last filter's input skips the throwing one").isEqualTo("first");

    filters.terminated(transport);
    filters.terminated(transport);
    assertThat(first.terminated).hasSize(1);
    assertThat(last.terminated).hasSize(1);
    assertThat(last.terminated.get(0).get(A)).isEqualTo("last");
    assertThat(logged).extracting(LogRecord::getMessage).anySatisfy(m -> assertThat(m).contains("threw in transportReady"));
  }
}
