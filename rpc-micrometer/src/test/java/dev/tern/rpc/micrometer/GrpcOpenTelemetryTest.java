package dev.tern.rpc.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.ForwardingChannelBuilder2;
import io.grpc.ForwardingServerBuilder;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.LongCounterMetricInstrument;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MetricInstrumentRegistry;
import io.grpc.MetricSink;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.opentelemetry.GrpcOpenTelemetry;
import io.grpc.stub.ClientCalls;
import io.grpc.util.ForwardingLoadBalancerHelper;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grpc-java's OpenTelemetry module ({@link GrpcOpenTelemetry}) on a Tern server and channel over
 * TCP on loopback: its per-call metrics, read from an in-memory OpenTelemetry metric reader.
 *
 * <p>{@code configureServerBuilder} adds a server stream tracer factory and then a {@link
 * MetricSink} ({@code addMetricSink}); {@code configureChannelBuilder} adds a {@link MetricSink}
 * and then an interceptor made for the channel's target ({@code interceptWithTarget}). The per-call
 * metrics come from the tracer and the interceptor, which Tern runs; the sink only receives what a
 * channel's load balancer and subchannels record, which Tern's do not. Tern's builders throw on
 * {@code addMetricSink}, so configuring them directly fails until rpc-api accepts sinks; through
 * builders that forward everything but keep the sink themselves, the metrics appear today.
 */
@Timeout(60)
class GrpcOpenTelemetryTest {
  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("grpc.method");
  private static final AttributeKey<String> STATUS = AttributeKey.stringKey("grpc.status");
  private static final AttributeKey<String> TARGET = AttributeKey.stringKey("grpc.target");
  private static final String UNARY = EchoService.SERVICE + "/Unary";
  private static final String MISSING = EchoService.SERVICE + "/Missing";

  private InMemoryMetricReader reader;
  private SdkMeterProvider meterProvider;
  private GrpcOpenTelemetry otel;
  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeEach
  void setUp() {
    reader = InMemoryMetricReader.create();
    meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    otel = GrpcOpenTelemetry.newBuilder()
        .sdk(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build())
        .build();
  }

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
    meterProvider.close();
  }

  /**
   * What a user writes: {@code configureServerBuilder} and {@code configureChannelBuilder} on
   * Tern's builders: {@code addMetricSink} keeps the sink on both.
   */
  @Test
  void configuredOnTernsOwnBuildersThePerCallMetricsAppear() throws Exception {
    TernServerBuilder serverBuilder = TernServerBuilder.create()
        .listen("tcp", new InetSocketAddress("127.0.0.1", 0)).addService(EchoService.service());
    otel.configureServerBuilder(serverBuilder);
    Server server = start(serverBuilder);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    TernChannelBuilder channelBuilder = TernChannelBuilder.forAddress("127.0.0.1", port).transports("tcp")
        .usePlaintext();
    otel.configureChannelBuilder(channelBuilder);
    ManagedChannel channel = channelBuilder.build();
    channels.add(channel);
    callAndCheck(channel);
  }

  /**
   * The same through builders that forward everything to Tern's but keep the sink: works now, and
   * shows exactly which builder methods grpc-java's module calls (one sink per builder; the rest
   * are the tracer factory and the target's interceptor).
   */
  @Test
  void throughBuildersThatKeepTheSinkThePerCallMetricsAppear() throws Exception {
    SinkKeepingServerBuilder serverBuilder = new SinkKeepingServerBuilder(TernServerBuilder.create()
        .listen("tcp", new InetSocketAddress("127.0.0.1", 0)).addService(EchoService.service()));
    otel.configureServerBuilder(serverBuilder);
    assertThat(serverBuilder.sinks).hasSize(1);
    Server server = start(serverBuilder.delegate);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    SinkKeepingChannelBuilder channelBuilder = new SinkKeepingChannelBuilder(
        TernChannelBuilder.forAddress("127.0.0.1", port).transports("tcp").usePlaintext());
    otel.configureChannelBuilder(channelBuilder);
    assertThat(channelBuilder.sinks).hasSize(1);
    ManagedChannel channel = channelBuilder.build();
    channels.add(channel);
    callAndCheck(channel);
  }

  private Server start(TernServerBuilder builder) throws Exception {
    Server server = builder.build().start();
    servers.add(server);
    return server;
  }

  /**
   * A load-balancing policy's own metric, recorded through its helper's {@code MetricRecorder},
   * reaches the sink grpc-java's module added ({@code grpc.lb.*} and {@code grpc.xds_client.*}
   * metrics travel this way): the channel's load-balancer helper returns a recorder over the
   * sinks.
   */
  @Test
  void aLoadBalancersMetricReachesTheSink() throws Exception {
    GrpcOpenTelemetry withPicks = GrpcOpenTelemetry.newBuilder()
        .sdk(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build())
        .enableMetrics(List.of(Picks.NAME))
        .build();
    Server server = start(TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(EchoService.service()));
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    TernChannelBuilder channelBuilder = TernChannelBuilder.forAddress("127.0.0.1", port).transports("tcp")
        .usePlaintext().defaultLoadBalancingPolicy(CountingPolicy.NAME);
    withPicks.configureChannelBuilder(channelBuilder);
    CountingPolicy policy = new CountingPolicy();
    LoadBalancerRegistry.getDefaultRegistry().register(policy);
    try {
      ManagedChannel channel = channelBuilder.build();
      channels.add(channel);
      for (int i = 0; i < 3; i++) {
        assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "p")).isEqualTo("p");
      }
    } finally {
      LoadBalancerRegistry.getDefaultRegistry().deregister(policy);
    }
    // A pick per call at least (a new picker may make a call pick again), all labelled with the
    // channel's target as the policy's helper gives it.
    long picks = 0;
    for (MetricData d : reader.collectAllMetrics()) {
      if (d.getName().equals(Picks.NAME)) {
        for (PointData p : d.getData().getPoints()) {
          assertThat(p.getAttributes().get(TARGET)).isNotEmpty();
          picks += ((io.opentelemetry.sdk.metrics.data.LongPointData) p).getValue();
        }
      }
    }
    assertThat(picks).isGreaterThanOrEqualTo(3);
  }

  /**
   * The test policy's counter, registered when first used: after the module's sink was made, so
   * the sink must learn of it on its first recording, as with a policy loaded late.
   */
  private static final class Picks {
    static final String NAME = "tern.test.lb.picks";
    static final LongCounterMetricInstrument COUNTER = MetricInstrumentRegistry.getDefaultRegistry()
        .registerLongCounter(NAME, "Picks the test policy made", "{pick}", List.of("grpc.target"), List.of(), false);
  }

  /** grpc-java's pick_first, counting each pick through its helper's metric recorder. */
  private static final class CountingPolicy extends LoadBalancerProvider {
    static final String NAME = "tern_test_counting_pick_first";

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public int getPriority() {
      return 5;
    }

    @Override
    public String getPolicyName() {
      return NAME;
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return LoadBalancerRegistry.getDefaultRegistry().getProvider("pick_first")
          .newLoadBalancer(new ForwardingLoadBalancerHelper() {
            @Override
            protected LoadBalancer.Helper delegate() {
              return helper;
            }

            @Override
            public void updateBalancingState(ConnectivityState state, LoadBalancer.SubchannelPicker picker) {
              helper.updateBalancingState(state, new LoadBalancer.SubchannelPicker() {
                @Override
                public LoadBalancer.PickResult pickSubchannel(LoadBalancer.PickSubchannelArgs args) {
                  helper.getMetricRecorder().addLongCounter(Picks.COUNTER, 1, List.of(helper.getChannelTarget()),
                      List.of());
                  return picker.pickSubchannel(args);
                }
              });
            }
          });
    }
  }

  /** Three calls that succeed and one to a method the server lacks; then each side's metrics. */
  private void callAndCheck(ManagedChannel channel) throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "m" + i))
          .isEqualTo("m" + i);
    }
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, EchoService.MISSING, CallOptions.DEFAULT, "x"))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("UNIMPLEMENTED");
    // The server records a call's end after its status went out: wait for the last one.
    await(() -> count(reader.collectAllMetrics(), "grpc.server.call.duration", Attributes.of(METHOD, "other",
        STATUS, "UNIMPLEMENTED")) == 1);
    Collection<MetricData> metrics = reader.collectAllMetrics();

    // Client: an attempt per call (no retries), each call's and attempt's duration with its status.
    assertThat(count(metrics, "grpc.client.attempt.started", Attributes.of(METHOD, UNARY))).isEqualTo(3);
    assertThat(count(metrics, "grpc.client.attempt.started", Attributes.of(METHOD, MISSING))).isEqualTo(1);
    assertThat(count(metrics, "grpc.client.attempt.duration", Attributes.of(METHOD, UNARY, STATUS, "OK")))
        .isEqualTo(3);
    assertThat(count(metrics, "grpc.client.call.duration", Attributes.of(METHOD, UNARY, STATUS, "OK"))).isEqualTo(3);
    assertThat(count(metrics, "grpc.client.call.duration", Attributes.of(METHOD, MISSING, STATUS, "UNIMPLEMENTED")))
        .isEqualTo(1);
    assertThat(count(metrics, "grpc.client.attempt.sent_total_compressed_message_size",
        Attributes.of(METHOD, UNARY, STATUS, "OK"))).isEqualTo(3);
    assertThat(count(metrics, "grpc.client.attempt.rcvd_total_compressed_message_size",
        Attributes.of(METHOD, UNARY, STATUS, "OK"))).isEqualTo(3);
    // Every client point names the channel's target.
    for (MetricData d : metrics) {
      if (d.getName().startsWith("grpc.client.")) {
        for (PointData p : d.getData().getPoints()) {
          assertThat(p.getAttributes().get(TARGET)).as(d.getName()).isNotEmpty();
        }
      }
    }

    // Server: the calls to a method it has by name; the one it lacks as "other", as grpc-java does.
    assertThat(count(metrics, "grpc.server.call.started", Attributes.of(METHOD, UNARY))).isEqualTo(3);
    assertThat(count(metrics, "grpc.server.call.duration", Attributes.of(METHOD, UNARY, STATUS, "OK"))).isEqualTo(3);
    assertThat(count(metrics, "grpc.server.call.sent_total_compressed_message_size",
        Attributes.of(METHOD, UNARY, STATUS, "OK"))).isEqualTo(3);
    assertThat(count(metrics, "grpc.server.call.rcvd_total_compressed_message_size",
        Attributes.of(METHOD, UNARY, STATUS, "OK"))).isEqualTo(3);
  }

  /**
   * The count of metric {@code name}'s points whose attributes include {@code attributes}: a
   * counter's sum, or a histogram's number of recordings; 0 if there is no such point.
   */
  private static long count(Collection<MetricData> metrics, String name, Attributes attributes) {
    long n = 0;
    for (MetricData d : metrics) {
      if (!d.getName().equals(name)) {
        continue;
      }
      for (PointData p : d.getData().getPoints()) {
        boolean match = attributes.asMap().entrySet().stream()
            .allMatch(e -> e.getValue().equals(p.getAttributes().get(e.getKey())));
        if (!match) {
          continue;
        }
        if (p instanceof io.opentelemetry.sdk.metrics.data.LongPointData l) {
          n += l.getValue();
        } else if (p instanceof io.opentelemetry.sdk.metrics.data.HistogramPointData h) {
          n += h.getCount();
        } else {
          throw new AssertionError(name + ": unexpected point " + p);
        }
      }
    }
    return n;
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 5 s");
      }
      Thread.sleep(10);
    }
  }

  /** Forwards everything to a Tern server builder but keeps the metric sinks itself. */
  static final class SinkKeepingServerBuilder extends ForwardingServerBuilder<SinkKeepingServerBuilder> {
    final TernServerBuilder delegate;
    final List<MetricSink> sinks = new ArrayList<>();

    SinkKeepingServerBuilder(TernServerBuilder delegate) {
      this.delegate = delegate;
    }

    @Override
    protected ServerBuilder<?> delegate() {
      return delegate;
    }

    @Override
    public SinkKeepingServerBuilder addMetricSink(MetricSink sink) {
      sinks.add(sink);
      return this;
    }
  }

  /** Forwards everything to a Tern channel builder but keeps the metric sinks itself. */
  static final class SinkKeepingChannelBuilder extends ForwardingChannelBuilder2<SinkKeepingChannelBuilder> {
    final TernChannelBuilder delegate;
    final List<MetricSink> sinks = new ArrayList<>();

    SinkKeepingChannelBuilder(TernChannelBuilder delegate) {
      this.delegate = delegate;
    }

    @Override
    protected ManagedChannelBuilder<?> delegate() {
      return delegate;
    }

    @Override
    protected SinkKeepingChannelBuilder addMetricSink(MetricSink sink) {
      sinks.add(sink);
      return this;
    }
  }
}
