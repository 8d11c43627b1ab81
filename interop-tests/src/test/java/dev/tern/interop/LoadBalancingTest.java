package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.conformance.Utf8;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Load balancing through grpc-java's public API, over real TCP sockets: {@code pick_first} by
 * default (one backend), {@code round_robin} from the builder or the service config (an even
 * spread, a dead backend's share moving to the others with no failed wait-for-ready call, a
 * resolver's changes followed), client-side health checking with grpc-java's health service, and
 * a custom policy from {@link LoadBalancerRegistry}.
 */
@Timeout(120)
class LoadBalancingTest {
  private static final MethodDescriptor.Marshaller<String> UTF8 = Utf8.MARSHALLER;
  private static final MethodDescriptor<String, String> WHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("tern.test.Who/Am")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

  private final List<Backend> backends = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<NameResolverProvider> resolvers = new ArrayList<>();
  private final List<LoadBalancerProvider> policies = new ArrayList<>();

  /** A server that answers with its name and counts the calls it answered. */
  private static final class Backend {
    final String name;
    final Server server;
    final InetSocketAddress address;
    final HealthStatusManager health = new HealthStatusManager();
    final AtomicInteger calls = new AtomicInteger();

    Backend(String name) throws IOException {
      this.name = name;
      this.server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
          .addService(ServerServiceDefinition.builder("tern.test.Who")
              .addMethod(WHO, ServerCalls.asyncUnaryCall((request, response) -> {
                calls.incrementAndGet();
                response.onNext(name);
                response.onCompleted();
              })).build())
          .addService(health.getHealthService())
          .build().start();
      this.address = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), server.getPort());
    }
  }

  /** A resolver giving one address group per backend (as a DNS answer does), and a service config. */
  static final class ListResolver extends NameResolver {
    private final Args args;
    private volatile List<SocketAddress> addresses;
    private final Map<String, ?> serviceConfig;
    private Listener2 listener;

    ListResolver(Args args, List<SocketAddress> addresses, Map<String, ?> serviceConfig) {
      this.args = args;
      this.addresses = addresses;
      this.serviceConfig = serviceConfig;
    }

    @Override public String getServiceAuthority() { return "who.test"; }

    @Override
    public void start(Listener2 l) {
      listener = l;
      publish();
    }

    @Override
    public void refresh() {
      publish();
    }

    void set(List<SocketAddress> now) {
      addresses = now;
      args.getSynchronizationContext().execute(this::publish);
    }

    private void publish() {
      List<EquivalentAddressGroup> groups = new ArrayList<>();
      for (SocketAddress a : addresses) {
        groups.add(new EquivalentAddressGroup(a));
      }
      ResolutionResult.Builder r = ResolutionResult.newBuilder().setAddressesOrError(
          io.grpc.StatusOr.fromValue(groups));
      if (serviceConfig != null) {
        r.setServiceConfig(args.getServiceConfigParser().parseServiceConfig(serviceConfig));
      }
      listener.onResult2(r.build());
    }

    @Override public void shutdown() {}
  }

  private static final class ListProvider extends NameResolverProvider {
    private final String scheme = "lbtest" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private final List<SocketAddress> initial;
    private final Map<String, ?> serviceConfig;
    volatile ListResolver made;

    ListProvider(List<SocketAddress> initial, Map<String, ?> serviceConfig) {
      this.initial = initial;
      this.serviceConfig = serviceConfig;
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
      if (!scheme.equals(targetUri.getScheme())) {
        return null;
      }
      made = new ListResolver(args, made != null ? made.addresses : initial, serviceConfig);
      return made;
    }

    @Override public String getDefaultScheme() { return scheme; }

    @Override protected boolean isAvailable() { return true; }

    @Override protected int priority() { return 5; }
  }

  private List<Backend> start(int n) throws IOException {
    List<Backend> made = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Backend b = new Backend("b" + i);
      backends.add(b);
      made.add(b);
    }
    return made;
  }

  private ListProvider resolver(List<Backend> over, Map<String, ?> serviceConfig) {
    List<SocketAddress> addresses = new ArrayList<>();
    for (Backend b : over) {
      addresses.add(b.address);
    }
    ListProvider p = new ListProvider(addresses, serviceConfig);
    NameResolverRegistry.getDefaultRegistry().register(p);
    resolvers.add(p);
    return p;
  }

  private ManagedChannel channel(ListProvider p, String policy) {
    TernChannelBuilder b = TernChannelBuilder.forTarget(p.getDefaultScheme() + ":///who").transports("tcp")
        .usePlaintext();
    if (policy != null) {
      b.defaultLoadBalancingPolicy(policy);
    }
    ManagedChannel c = b.build();
    channels.add(c);
    return c;
  }

  private static String who(ManagedChannel channel) {
    return ClientCalls.blockingUnaryCall(channel, WHO,
        CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(20, TimeUnit.SECONDS), "?");
  }

  /** Calls until every one of {@code expected} has answered (round_robin connects to each), then zeroes the counts. */
  private void warmUp(ManagedChannel channel, List<Backend> expected) {
    for (int i = 0; i < 2_000 && !expected.stream().allMatch(b -> b.calls.get() > 0); i++) {
      who(channel);
    }
    assertThat(expected).as("every backend answered while warming up").allMatch(b -> b.calls.get() > 0);
    backends.forEach(b -> b.calls.set(0));
  }

  @Test
  void pickFirstIsTheDefaultAndKeepsToOneBackend() throws Exception {
    List<Backend> three = start(3);
    ManagedChannel channel = channel(resolver(three, null), null);
    for (int i = 0; i < 100; i++) {
      assertThat(who(channel)).isEqualTo("b0");
    }
    assertThat(three.get(0).calls.get()).isEqualTo(100);
  }

  @Test
  void roundRobinSpreadsCallsEvenlyAndADeadBackendsShareMovesToTheOthers() throws Exception {
    List<Backend> three = start(3);
    ManagedChannel channel = channel(resolver(three, null), "round_robin");
    warmUp(channel, three);
    for (int i = 0; i < 3_000; i++) {
      who(channel);
    }
    for (Backend b : three) {
      assertThat(b.calls.get()).as("%s's share of 3000 calls, 33%% +- 3%%", b.name).isBetween(900, 1080);
    }

    backends.forEach(b -> b.calls.set(0));
    int failed = 0;
    for (int i = 0; i < 3_000; i++) {
      if (i == 300) {
        three.get(1).server.shutdownNow();
        assertThat(three.get(1).server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
      try {
        who(channel);
      } catch (StatusRuntimeException e) {
        failed++;
      }
    }
    assertThat(failed).as("wait-for-ready calls failed while a backend died").isZero();
    int survivors = three.get(0).calls.get() + three.get(2).calls.get();
    assertThat(survivors + three.get(1).calls.get()).isEqualTo(3_000);
    assertThat(three.get(1).calls.get()).as("calls the dead backend took before it died").isLessThanOrEqualTo(101);
    for (Backend b : List.of(three.get(0), three.get(2))) {
      assertThat(b.calls.get()).as("%s after b1 died: about half of the 2,700 calls after the kill plus a"
          + " third of the 300 before", b.name).isBetween(1_350, 1_550);
    }
  }

  @Test
  void theServiceConfigChoosesThePolicyAndTheResolversChangesAreFollowed() throws Exception {
    List<Backend> three = start(3);
    ListProvider p = resolver(three.subList(0, 2), Map.of("loadBalancingConfig", List.of(Map.of("round_robin", Map.of()))));
    ManagedChannel channel = channel(p, null);
    warmUp(channel, three.subList(0, 2));
    for (int i = 0; i < 200; i++) {
      who(channel);
    }
    assertThat(three.get(0).calls.get()).isEqualTo(100);
    assertThat(three.get(1).calls.get()).isEqualTo(100);

    p.made.set(List.of(three.get(1).address, three.get(2).address));
    // The change reaches the policy in the resolver's synchronization context: wait until b2 answers.
    for (int i = 0; i < 2_000 && three.get(2).calls.get() == 0; i++) {
      who(channel);
    }
    backends.forEach(b -> b.calls.set(0));
    for (int i = 0; i < 200; i++) {
      who(channel);
    }
    assertThat(three.get(0).calls.get()).as("b0, no longer resolved").isZero();
    assertThat(three.get(1).calls.get()).isEqualTo(100);
    assertThat(three.get(2).calls.get()).isEqualTo(100);
  }

  @Test
  void roundRobinWithHealthChecksLeavesANotServingBackendAndComesBack() throws Exception {
    List<Backend> three = start(3);
    for (Backend b : three) {
      b.health.setStatus("tern.test.Who", ServingStatus.SERVING);
    }
    ListProvider p = resolver(three, Map.of(
        "loadBalancingConfig", List.of(Map.of("round_robin", Map.of())),
        "healthCheckConfig", Map.of("serviceName", "tern.test.Who")));
    ManagedChannel channel = channel(p, null);
    warmUp(channel, three);

    three.get(2).health.setStatus("tern.test.Who", ServingStatus.NOT_SERVING);
    // The Watch stream tells the client at once; calls already picked may still reach b2.
    for (int i = 0; i < 2_000; i++) {
      three.get(2).calls.set(0);
      for (int j = 0; j < 30; j++) {
        who(channel);
      }
      if (three.get(2).calls.get() == 0) {
        break;
      }
    }
    backends.forEach(b -> b.calls.set(0));
    for (int i = 0; i < 300; i++) {
      who(channel);
    }
    assertThat(three.get(2).calls.get()).as("calls to the NOT_SERVING backend").isZero();
    assertThat(three.get(0).calls.get()).isEqualTo(150);
    assertThat(three.get(1).calls.get()).isEqualTo(150);

    three.get(2).health.setStatus("tern.test.Who", ServingStatus.SERVING);
    for (int i = 0; i < 2_000 && three.get(2).calls.get() == 0; i++) {
      who(channel);
    }
    assertThat(three.get(2).calls.get()).as("b2 serves again").isPositive();
  }

  @Test
  void aCustomPolicyFromTheRegistryPlugsIn() throws Exception {
    List<Backend> three = start(3);
    LastAddressPolicy.Provider provider = new LastAddressPolicy.Provider();
    LoadBalancerRegistry.getDefaultRegistry().register(provider);
    policies.add(provider);
    ManagedChannel channel = channel(resolver(three, null), provider.getPolicyName());
    for (int i = 0; i < 20; i++) {
      assertThat(who(channel)).isEqualTo("b2");
    }
  }

  @Test
  void anUnknownPolicyIsRefusedAtBuild() {
    assertThatThrownBy(() -> TernChannelBuilder.forAddress("127.0.0.1", 1).usePlaintext()
        .defaultLoadBalancingPolicy("no_such_policy").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no_such_policy")
        .hasMessageContaining("LoadBalancerRegistry");
  }

  @Test
  void aNonWaitForReadyCallFailsWithTheBackendsFailureWhenNoneAnswers() throws Exception {
    List<Backend> one = start(1);
    one.get(0).server.shutdownNow();
    assertThat(one.get(0).server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    ManagedChannel channel = channel(resolver(one, null), "round_robin");
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, WHO,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "?"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription()).contains("127.0.0.1:" + one.get(0).address.getPort());
        });
  }

  /** A policy of the test's own: one subchannel, to the last address the resolver lists. */
  static final class LastAddressPolicy extends LoadBalancer {
    private final Helper helper;
    private Subchannel subchannel;

    LastAddressPolicy(Helper helper) {
      this.helper = helper;
    }

    @Override
    public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
      List<EquivalentAddressGroup> groups = resolved.getAddresses();
      EquivalentAddressGroup last = groups.get(groups.size() - 1);
      if (subchannel == null) {
        subchannel = helper.createSubchannel(CreateSubchannelArgs.newBuilder().setAddresses(last).build());
        subchannel.start(this::state);
        helper.updateBalancingState(ConnectivityState.CONNECTING, new FixedPicker(PickResult.withNoResult()));
        subchannel.requestConnection();
      } else {
        subchannel.updateAddresses(List.of(last));
      }
      return Status.OK;
    }

    private void state(ConnectivityStateInfo info) {
      switch (info.getState()) {
        case READY:
          helper.updateBalancingState(ConnectivityState.READY, new FixedPicker(PickResult.withSubchannel(subchannel)));
          break;
        case TRANSIENT_FAILURE:
          helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
              new FixedPicker(PickResult.withError(info.getStatus())));
          break;
        case IDLE:
          subchannel.requestConnection();
          break;
        default:
          break;
      }
    }

    @Override
    public void handleNameResolutionError(Status error) {
      helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE, new FixedPicker(PickResult.withError(error)));
    }

    @Override
    public void shutdown() {
      if (subchannel != null) {
        subchannel.shutdown();
      }
    }

    private static final class FixedPicker extends SubchannelPicker {
      private final PickResult result;

      FixedPicker(PickResult result) {
        this.result = result;
      }

      @Override
      public PickResult pickSubchannel(PickSubchannelArgs args) {
        return result;
      }
    }

    static final class Provider extends LoadBalancerProvider {
      @Override public boolean isAvailable() { return true; }

      @Override public int getPriority() { return 5; }

      @Override public String getPolicyName() { return "tern_test_last_address"; }

      @Override
      public LoadBalancer newLoadBalancer(Helper helper) {
        return new LastAddressPolicy(helper);
      }
    }
  }

  @AfterEach
  void stop() throws InterruptedException {
    resolvers.forEach(NameResolverRegistry.getDefaultRegistry()::deregister);
    policies.forEach(LoadBalancerRegistry.getDefaultRegistry()::deregister);
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).as("channel terminated").isTrue();
    }
    for (Backend b : backends) {
      b.server.shutdownNow();
      assertThat(b.server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
