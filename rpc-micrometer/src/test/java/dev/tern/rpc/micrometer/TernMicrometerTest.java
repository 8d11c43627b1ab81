package dev.tern.rpc.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TernMeterBinder} over real servers and channels (the in-process transport, and TCP on
 * loopback for a transport that appears later): the meters read exactly what the call layer and
 * the transports counted, meters appear for counters that appear after binding, binding late shows
 * what was counted before, binding again changes nothing.
 */
@Timeout(60)
class TernMicrometerTest {
  /** The meters each transport's counters get, before any status code or refusal reason. */
  private static final int METERS_PER_TRANSPORT = 16;

  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void theMetersShowExactlyWhatWasCountedForCallsWithSeveralOutcomes() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TernMeterBinder.bind(metrics, registry);
    assertThat(registry.getMeters()).isEmpty();

    InProcessAddress address = newAddress();
    startServer(metrics, "echo-server", address, new InProcessTransportProvider());
    ManagedChannel channel = channel(metrics, "echo-channel", address);
    for (int i = 0; i < 5; i++) {
      assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "hello " + i))
          .isEqualTo("hello " + i);
    }
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, EchoService.MISSING, CallOptions.DEFAULT, "x"))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("UNIMPLEMENTED");

    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "echo-server", InProcessTransportProvider.NAME);
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, "echo-channel", InProcessTransportProvider.NAME);
    Tags server = Tags.of("side", "server", "scope", "echo-server", "transport", "inprocess");
    Tags client = Tags.of("side", "client", "scope", "echo-channel", "transport", "inprocess");

    // A call the server never answers, cancelled by the client: the gauges follow it live.
    ClientCall<String, String> slow = channel.newCall(EchoService.SLOW, CallOptions.DEFAULT);
    CompletableFuture<Status> slowClosed = new CompletableFuture<>();
    slow.start(new ClientCall.Listener<String>() {
      @Override public void onClose(Status status, Metadata trailers) {
        slowClosed.complete(status);
      }
    }, new Metadata());
    slow.sendMessage("wait");
    slow.halfClose();
    slow.request(1);
    await(() -> gauge(registry, "tern.calls.active", server) == 1);
    assertThat(gauge(registry, "tern.calls.active", client)).isEqualTo(1);
    slow.cancel("enough", null);
    assertThat(slowClosed.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    await(() -> gauge(registry, "tern.calls.active", server) == 0);
    assertThat(gauge(registry, "tern.calls.active", client)).isZero();

    for (Tags side : List.of(server, client)) {
      assertThat(counter(registry, "tern.calls.started", side)).isEqualTo(7);
      assertThat(counter(registry, "tern.calls.finished", side.and("code", "OK"))).isEqualTo(5);
      assertThat(counter(registry, "tern.calls.finished", side.and("code", "UNIMPLEMENTED"))).isEqualTo(1);
      assertThat(counter(registry, "tern.calls.finished", side.and("code", "CANCELLED"))).isEqualTo(1);
      assertThat(gauge(registry, "tern.connections.active", side)).isEqualTo(1);
      assertThat(counter(registry, "tern.connections.opened", side)).isEqualTo(1);
      assertThat(counter(registry, "tern.handshakes.started", side)).isEqualTo(1);
      assertThat(counter(registry, "tern.handshakes.succeeded", side)).isEqualTo(1);
      assertThat(counter(registry, "tern.handshakes.failed", side)).isZero();
      assertThat(counter(registry, "tern.handshakes.timed.out", side)).isZero();
      assertThat(gauge(registry, "tern.handshakes.in.progress", side)).isZero();
      assertThat(counter(registry, "tern.retransmissions", side)).isZero();
      assertThat(counter(registry, "tern.retries.sent", side)).isZero();
      assertThat(counter(registry, "tern.early.data", side.and("outcome", "accepted"))).isZero();
      assertThat(counter(registry, "tern.early.data", side.and("outcome", "rejected"))).isZero();
    }
    // Only the client cancelled: only the server saw a stream reset by its peer.
    assertThat(counter(registry, "tern.streams.reset", server)).isEqualTo(1);
    assertThat(counter(registry, "tern.streams.reset", client)).isZero();

    // Bytes: what the transport counted, in bytes; what one side sent the other received.
    assertThat(counter(registry, "tern.bytes.sent", client)).isEqualTo(c.bytesSent())
        .isGreaterThanOrEqualTo(5 * "hello 0".length());
    assertThat(counter(registry, "tern.bytes.received", server)).isEqualTo(s.bytesReceived())
        .isEqualTo(c.bytesSent());
    assertThat(counter(registry, "tern.bytes.sent", server)).isEqualTo(s.bytesSent()).isEqualTo(c.bytesReceived())
        .isGreaterThanOrEqualTo(5 * "hello 0".length());
    assertThat(registry.get("tern.bytes.sent").tags(server).functionCounter().getId().getBaseUnit())
        .isEqualTo("bytes");

    // Nothing else: no meter for a code or reason never counted, and exactly these meters.
    assertThat(registry.find("tern.calls.finished").tags("code", "INTERNAL").meters()).isEmpty();
    assertThat(registry.find("tern.refusals").meters()).isEmpty();
    assertThat(registry.getMeters()).hasSize(2 * (METERS_PER_TRANSPORT + 3));
    for (Meter m : registry.getMeters()) {
      assertThat(m.getId().getName()).startsWith("tern.");
      assertThat(m.getId().getTag("side")).isIn("server", "client");
      assertThat(m.getId().getTag("transport")).isEqualTo("inprocess");
    }

    // Closing the channel ends the connection on both sides; the gauges say so without re-binding.
    channel.shutdown();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    await(() -> gauge(registry, "tern.connections.active", server) == 0);
    assertThat(gauge(registry, "tern.connections.active", client)).isZero();
    assertThat(counter(registry, "tern.connections.opened", server)).isEqualTo(1);
  }

  @Test
  void countersThatAppearAfterBindingGetMeters() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TernMeterBinder.bind(metrics, registry);

    EventsProvider provider = new EventsProvider();
    InProcessAddress address = newAddress();
    startServer(metrics, "late", address, provider);
    ManagedChannel channel = channel(metrics, "late-channel", address);
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "a")).isEqualTo("a");
    Tags server = Tags.of("side", "server", "scope", "late", "transport", "inprocess");
    assertThat(counter(registry, "tern.calls.finished", server.and("code", "OK"))).isEqualTo(1);

    // A status code first seen now.
    assertThat(registry.find("tern.calls.finished").tags("code", "UNIMPLEMENTED").meters()).isEmpty();
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, EchoService.MISSING, CallOptions.DEFAULT, "x"))
        .isInstanceOf(StatusRuntimeException.class);
    assertThat(counter(registry, "tern.calls.finished", server.and("code", "UNIMPLEMENTED"))).isEqualTo(1);
    assertThat(counter(registry, "tern.calls.finished",
        Tags.of("side", "client", "scope", "late-channel", "transport", "inprocess", "code", "UNIMPLEMENTED")))
        .isEqualTo(1);

    // Refusal reasons first seen now, reported as a transport reports them: through the events
    // the call layer gave the server transport in its options. Each moves its own meter only.
    TransportEvents events = provider.serverEvents;
    assertThat(events).isNotNull().isNotSameAs(TransportEvents.NONE);
    assertThat(registry.find("tern.refusals").meters()).isEmpty();
    events.refused(TransportEvents.CONNECTION_LIMIT);
    events.refused(TransportEvents.CONNECTION_LIMIT);
    events.refused(TransportEvents.MALFORMED);
    assertThat(counter(registry, "tern.refusals", server.and("reason", "connection-limit"))).isEqualTo(2);
    assertThat(counter(registry, "tern.refusals", server.and("reason", "malformed"))).isEqualTo(1);
    assertThat(registry.find("tern.refusals").meters()).hasSize(2);

    // The transport's other events, each on its own meter.
    Map<String, Double> before = snapshot(registry, server);
    events.retransmitted(3);
    events.retrySent();
    events.earlyData(true);
    events.earlyData(false);
    events.earlyData(false);
    events.streamReset();
    Map<String, Double> after = snapshot(registry, server);
    Map<String, Double> moved = new TreeMap<>();
    after.forEach((k, v) -> {
      if (!v.equals(before.get(k))) {
        moved.put(k, v - before.get(k));
      }
    });
    assertThat(moved).isEqualTo(Map.of("tern.retransmissions", 3.0, "tern.retries.sent", 1.0,
        "tern.early.data{outcome=accepted}", 1.0, "tern.early.data{outcome=rejected}", 2.0,
        "tern.streams.reset", 1.0));

    // A transport first counted now: a TCP server and channel on loopback.
    assertThat(registry.find("tern.calls.started").tags("transport", "tcp").meters()).isEmpty();
    Server tcp = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(EchoService.service()).metrics(metrics, "late").build().start();
    servers.add(tcp);
    int port = ((InetSocketAddress) tcp.getListenSockets().get(0)).getPort();
    ManagedChannel tcpChannel = TernChannelBuilder.forAddress("127.0.0.1", port).transports("tcp").usePlaintext()
        .metrics(metrics, "late-channel").build();
    channels.add(tcpChannel);
    for (int i = 0; i < 3; i++) {
      assertThat(ClientCalls.blockingUnaryCall(tcpChannel, EchoService.UNARY, CallOptions.DEFAULT, "t")).isEqualTo("t");
    }
    Tags tcpServer = Tags.of("side", "server", "scope", "late", "transport", "tcp");
    Tags tcpClient = Tags.of("side", "client", "scope", "late-channel", "transport", "tcp");
    await(() -> counter(registry, "tern.calls.finished", tcpServer.and("code", "OK")) == 3);
    assertThat(counter(registry, "tern.calls.started", tcpServer)).isEqualTo(3);
    assertThat(counter(registry, "tern.calls.finished", tcpClient.and("code", "OK"))).isEqualTo(3);
    assertThat(gauge(registry, "tern.connections.active", tcpClient)).isEqualTo(1);
    assertThat(registry.find("tern.calls.started").tags("transport", "tcp").meters()).hasSize(2);
    // The in-process counters did not move.
    assertThat(counter(registry, "tern.calls.started", server)).isEqualTo(2);
  }

  @Test
  void bindingAfterCountsExistShowsThem() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    EventsProvider provider = new EventsProvider();
    InProcessAddress address = newAddress();
    startServer(metrics, "early", address, provider);
    ManagedChannel channel = channel(metrics, "early-channel", address);
    for (int i = 0; i < 3; i++) {
      ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "b");
    }
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, EchoService.MISSING, CallOptions.DEFAULT, "x"))
        .isInstanceOf(StatusRuntimeException.class);
    provider.serverEvents.refused(TransportEvents.HANDSHAKE_LIMIT);
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "early", InProcessTransportProvider.NAME);
    await(() -> s.callsFinished() == 4);

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new TernMeterBinder(metrics).bindTo(registry);
    Tags server = Tags.of("side", "server", "scope", "early", "transport", "inprocess");
    Tags client = Tags.of("side", "client", "scope", "early-channel", "transport", "inprocess");
    assertThat(counter(registry, "tern.calls.started", server)).isEqualTo(4);
    assertThat(counter(registry, "tern.calls.finished", server.and("code", "OK"))).isEqualTo(3);
    assertThat(counter(registry, "tern.calls.finished", server.and("code", "UNIMPLEMENTED"))).isEqualTo(1);
    assertThat(counter(registry, "tern.calls.finished", client.and("code", "OK"))).isEqualTo(3);
    assertThat(counter(registry, "tern.refusals", server.and("reason", "handshake-limit"))).isEqualTo(1);
    assertThat(counter(registry, "tern.bytes.received", server)).isEqualTo(s.bytesReceived()).isPositive();
    assertThat(gauge(registry, "tern.connections.active", server)).isEqualTo(1);
    assertThat(registry.getMeters()).hasSize(2 * METERS_PER_TRANSPORT + 2 + 2 + 1);

    // And from then on the meters read the live counts.
    ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "c");
    await(() -> counter(registry, "tern.calls.finished", server.and("code", "OK")) == 4);
    assertThat(counter(registry, "tern.calls.started", client)).isEqualTo(5);
  }

  @Test
  void bindingAgainAddsNoMeterAndCountsNothingTwice() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    SimpleMeterRegistry once = new SimpleMeterRegistry();
    SimpleMeterRegistry thrice = new SimpleMeterRegistry();
    new TernMeterBinder(metrics).bindTo(once);
    TernMeterBinder binder = new TernMeterBinder(metrics);
    binder.bindTo(thrice);
    binder.bindTo(thrice);
    TernMeterBinder.bind(metrics, thrice);

    InProcessAddress address = newAddress();
    startServer(metrics, "twice", address, new InProcessTransportProvider());
    ManagedChannel channel = channel(metrics, "twice-channel", address);
    for (int i = 0; i < 4; i++) {
      ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "d");
    }
    Tags server = Tags.of("side", "server", "scope", "twice", "transport", "inprocess");
    await(() -> counter(thrice, "tern.calls.finished", server.and("code", "OK")) == 4);
    assertThat(counter(thrice, "tern.calls.started", server)).isEqualTo(4);
    assertThat(thrice.getMeters()).hasSize(2 * (METERS_PER_TRANSPORT + 1));
    assertThat(ids(thrice)).isEqualTo(ids(once));
    assertThat(snapshot(thrice, server)).isEqualTo(snapshot(once, server));
  }

  @Test
  void theMetersHoldTheCountersWhenNothingElseDoes() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WeakReference<TernMetrics> metrics = countAndDrop(registry);
    // A collection that clears weak references has run: a meter that held its counters weakly
    // would now read NaN (a gauge) or nothing counted since its last read (a function counter).
    WeakReference<Object> canary = new WeakReference<>(new Object());
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (canary.get() != null) {
      assertThat(System.nanoTime()).as("no garbage collection within 20 s").isLessThan(end);
      System.gc();
      Thread.sleep(10);
    }
    assertThat(metrics.get()).as("the TernMetrics, held by its meters").isNotNull();
    Tags dropped = Tags.of("side", "server", "scope", "dropped", "transport", "udp");
    assertThat(counter(registry, "tern.calls.started", dropped)).isEqualTo(2);
    assertThat(gauge(registry, "tern.calls.active", dropped)).isEqualTo(1);
    assertThat(counter(registry, "tern.refusals", dropped.and("reason", "malformed"))).isEqualTo(1);
  }

  /** Counts into a {@link TernMetrics} that nothing but {@code registry}'s meters keeps. */
  private static WeakReference<TernMetrics> countAndDrop(MeterRegistry registry) {
    TernMetrics metrics = TernMetrics.create();
    TernMeterBinder.bind(metrics, registry);
    TransportMetrics m = metrics.transport(TernMetrics.Side.SERVER, "dropped", "udp");
    m.callStarted();
    m.callStarted();
    m.callFinished(Status.Code.OK);
    m.refused(TransportEvents.MALFORMED);
    return new WeakReference<>(metrics);
  }

  /** A channel's call-policy counters (what rpc-resilience counts) as meters, before and after binding. */
  @Test
  void callPolicyCountersAndBreakerStatesBecomeMeters() {
    TernMetrics metrics = TernMetrics.create();
    dev.tern.rpc.metrics.CallPolicyMetrics before = metrics.callPolicies("app");
    before.retryScheduled();
    before.breakerState("udp", dev.tern.rpc.metrics.CallPolicyMetrics.BreakerState.CLOSED);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TernMeterBinder.bind(metrics, registry);
    assertThat(registry.get("tern.call.retries").tags("side", "client", "scope", "app").functionCounter().count())
        .isEqualTo(1);
    assertThat(registry.get("tern.breaker.state").tags("scope", "app", "transport", "udp").gauge().value()).isZero();

    before.breakerState("udp", dev.tern.rpc.metrics.CallPolicyMetrics.BreakerState.OPEN);
    before.breakerState("tcp", dev.tern.rpc.metrics.CallPolicyMetrics.BreakerState.HALF_OPEN);
    before.hedgeSent();
    before.hedgeSent();
    assertThat(registry.get("tern.breaker.state").tags("transport", "udp").gauge().value()).isEqualTo(1);
    assertThat(registry.get("tern.breaker.opened").tags("transport", "udp").functionCounter().count()).isEqualTo(1);
    assertThat(registry.get("tern.breaker.state").tags("transport", "tcp").gauge().value()).isEqualTo(2);
    assertThat(registry.get("tern.call.hedges").functionCounter().count()).isEqualTo(2);

    dev.tern.rpc.metrics.CallPolicyMetrics after = metrics.callPolicies("other");
    after.retriesExhausted();
    assertThat(registry.get("tern.call.retries.exhausted").tags("scope", "other").functionCounter().count())
        .isEqualTo(1);
  }

  @Test
  void extraTagsGoOnEveryMeterAndMayNotReplaceTheBindersOwn() {
    TernMetrics metrics = TernMetrics.create();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new TernMeterBinder(metrics, Tags.of("region", "eu")).bindTo(registry);
    TransportMetrics m = metrics.transport(TernMetrics.Side.CLIENT, "c", "none");
    m.callStarted();
    m.callFinished(Status.Code.DEADLINE_EXCEEDED);
    assertThat(registry.getMeters()).hasSize(METERS_PER_TRANSPORT + 1)
        .allSatisfy(meter -> assertThat(meter.getId().getTag("region")).isEqualTo("eu"));
    assertThat(counter(registry, "tern.calls.finished",
        Tags.of("region", "eu", "side", "client", "scope", "c", "transport", "none", "code", "DEADLINE_EXCEEDED")))
        .isEqualTo(1);
    assertThatThrownBy(() -> new TernMeterBinder(metrics, Tags.of("transport", "x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transport");
  }

  // ---- helpers ----

  /** The in-process provider, keeping the events the call layer gave its server transport. */
  static final class EventsProvider extends InProcessTransportProvider {
    volatile TransportEvents serverEvents;

    @Override
    public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
      serverEvents = options.get(TransportOptions.EVENTS);
      return super.newServerTransport(bindAddress, options);
    }
  }

  private static InProcessAddress newAddress() {
    return new InProcessAddress("micrometer-" + UUID.randomUUID());
  }

  private void startServer(TernMetrics metrics, String name, InProcessAddress address,
      InProcessTransportProvider provider) throws Exception {
    servers.add(TernServerBuilder.create().addTransportProvider(provider)
        .listen(InProcessTransportProvider.NAME, address).addService(EchoService.service())
        .metrics(metrics, name).build().start());
  }

  private ManagedChannel channel(TernMetrics metrics, String name, InProcessAddress address) {
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(new InProcessTransportProvider())
        .transports(InProcessTransportProvider.NAME).usePlaintext().metrics(metrics, name).build();
    channels.add(channel);
    return channel;
  }

  private static double counter(MeterRegistry registry, String name, Tags tags) {
    FunctionCounter c = registry.get(name).tags(tags).functionCounter();
    return c.count();
  }

  private static double gauge(MeterRegistry registry, String name, Tags tags) {
    Gauge g = registry.get(name).tags(tags).gauge();
    return g.value();
  }

  /** Every meter with {@code tags}, by name (and the tags beyond {@code tags}), with its value. */
  private static Map<String, Double> snapshot(MeterRegistry registry, Tags tags) {
    Map<String, Double> out = new TreeMap<>();
    for (Meter m : registry.getMeters()) {
      boolean match = true;
      for (Tag t : tags) {
        match &= t.getValue().equals(m.getId().getTag(t.getKey()));
      }
      if (!match) {
        continue;
      }
      StringBuilder key = new StringBuilder(m.getId().getName());
      List<String> extra = new ArrayList<>();
      for (Tag t : m.getId().getTags()) {
        if (tags.stream().noneMatch(x -> x.getKey().equals(t.getKey()))) {
          extra.add(t.getKey() + "=" + t.getValue());
        }
      }
      if (!extra.isEmpty()) {
        key.append('{').append(String.join(",", extra)).append('}');
      }
      double v = m instanceof Gauge g ? g.value() : ((FunctionCounter) m).count();
      out.put(key.toString(), v);
    }
    return out;
  }

  private static List<String> ids(MeterRegistry registry) {
    List<String> out = new ArrayList<>();
    for (Meter m : registry.getMeters()) {
      out.add(m.getId().toString());
    }
    out.sort(null);
    return out;
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 5 s");
      }
      Thread.sleep(5);
    }
  }
}
