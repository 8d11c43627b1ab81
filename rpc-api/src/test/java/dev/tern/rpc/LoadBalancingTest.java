package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusOr;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The channel's load balancing over in-process servers (the same code runs for every transport;
 * interop-tests' {@code LoadBalancingTest} repeats the essentials over TCP): {@code pick_first} by
 * default, {@code round_robin} from {@code defaultLoadBalancingPolicy} or a resolver's service
 * config, one connection per backend, and idleness closing every backend's connection.
 */
@Timeout(60)
class LoadBalancingTest {
  private static final MethodDescriptor<String, String> WHO = TestMethods.method("Who", MethodDescriptor.MethodType.UNARY);

  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<AtomicInteger> counts = new ArrayList<>();
  private final List<InProcessAddress> addresses = new ArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  /** A permit per connection made (the listener runs just after the race is won, not before the call). */
  private final java.util.concurrent.Semaphore connected = new java.util.concurrent.Semaphore(0);

  private void servers(int n) throws Exception {
    for (int i = 0; i < n; i++) {
      String name = "s" + i;
      AtomicInteger count = new AtomicInteger();
      InProcessAddress address = new InProcessAddress("lb-" + name + "-" + UUID.randomUUID());
      servers.add(TernServerBuilder.create().listen("inprocess", address)
          .addService(ServerServiceDefinition.builder("test.Echo").addMethod(WHO, ServerCalls.asyncUnaryCall((req, obs) -> {
            if (req.equals("slow")) {
              return; // never answered: only a deadline ends the call
            }
            count.incrementAndGet();
            obs.onNext(name);
            obs.onCompleted();
          })).build()).build().start());
      counts.add(count);
      addresses.add(address);
    }
  }

  /** A resolver factory giving one group per server and, if not null, a service config. */
  private NameResolver.Factory resolver(Map<String, ?> serviceConfig) {
    return new NameResolver.Factory() {
      @Override
      public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
        return new NameResolver() {
          @Override public String getServiceAuthority() { return "lb.test"; }

          @Override
          public void start(Listener2 listener) {
            List<EquivalentAddressGroup> groups = new ArrayList<>();
            addresses.forEach(a -> groups.add(new EquivalentAddressGroup(a)));
            ResolutionResult.Builder r = ResolutionResult.newBuilder().setAddressesOrError(StatusOr.fromValue(groups));
            if (serviceConfig != null) {
              r.setServiceConfig(args.getServiceConfigParser().parseServiceConfig(serviceConfig));
            }
            listener.onResult2(r.build());
          }

          @Override public void shutdown() {}
        };
      }

      @Override public String getDefaultScheme() { return "lbtest"; }
    };
  }

  @SuppressWarnings("deprecation")
  private ManagedChannel channel(Map<String, ?> serviceConfig, String policy, long idleSeconds) {
    TernChannelBuilder b = TernChannelBuilder.forTarget("who.lb.test:443").nameResolverFactory(resolver(serviceConfig))
        .transports("inprocess").usePlaintext().connectionListener(info -> {
          connections.incrementAndGet();
          connected.release();
        });
    if (policy != null) {
      b.defaultLoadBalancingPolicy(policy);
    }
    if (idleSeconds > 0) {
      b.idleTimeout(idleSeconds, TimeUnit.SECONDS);
    }
    ManagedChannel c = b.build();
    channels.add(c);
    return c;
  }

  private static String who(ManagedChannel c) {
    return ClientCalls.blockingUnaryCall(c, WHO, CallOptions.DEFAULT.withWaitForReady()
        .withDeadlineAfter(10, TimeUnit.SECONDS), "?");
  }

  private void callUntilEveryServerAnswered(ManagedChannel c) {
    for (int i = 0; i < 1_000 && counts.stream().anyMatch(n -> n.get() == 0); i++) {
      who(c);
    }
    assertThat(counts).allMatch(n -> n.get() > 0);
    counts.forEach(n -> n.set(0));
  }

  @Test
  void pickFirstIsTheDefault() throws Exception {
    servers(3);
    ManagedChannel c = channel(null, null, 0);
    for (int i = 0; i < 30; i++) {
      assertThat(who(c)).isEqualTo("s0");
    }
    assertThat(connected.tryAcquire(1, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(connections.get()).as("one connection").isEqualTo(1);
  }

  @Test
  void roundRobinFromTheBuilderTakesTurnsWithOneConnectionPerBackend() throws Exception {
    servers(3);
    ManagedChannel c = channel(null, "round_robin", 0);
    callUntilEveryServerAnswered(c);
    for (int i = 0; i < 300; i++) {
      who(c);
    }
    assertThat(counts).allMatch(n -> n.get() == 100);
    assertThat(connected.tryAcquire(3, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(connections.get()).as("one connection per backend").isEqualTo(3);
  }

  @Test
  void roundRobinFromTheResolversServiceConfig() throws Exception {
    servers(2);
    ManagedChannel c = channel(Map.of("loadBalancingPolicy", "ROUND_ROBIN"), null, 0);
    callUntilEveryServerAnswered(c);
    for (int i = 0; i < 100; i++) {
      who(c);
    }
    assertThat(counts).allMatch(n -> n.get() == 50);
  }

  @Test
  void theResolversMethodConfigAppliesToCalls() throws Exception {
    servers(1);
    ManagedChannel c = channel(Map.of("methodConfig", List.of(Map.of(
        "name", List.of(Map.of("service", "test.Echo", "method", "Who")), "timeout", "0.2s"))), null, 0);
    // The first call resolves; calls made after it see the resolver's config.
    assertThat(who(c)).isEqualTo("s0");
    long start = System.nanoTime();
    io.grpc.StatusRuntimeException e = org.assertj.core.api.Assertions.catchThrowableOfType(
        io.grpc.StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(c, WHO, CallOptions.DEFAULT, "slow"));
    assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.DEADLINE_EXCEEDED);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms until the 0.2 s timeout").isLessThan(5_000);
  }

  @Test
  void withServiceConfigLookUpDisabledTheDefaultPolicyApplies() throws Exception {
    servers(2);
    @SuppressWarnings("deprecation")
    ManagedChannel c = TernChannelBuilder.forTarget("who.lb.test:443")
        .nameResolverFactory(resolver(Map.of("loadBalancingConfig", List.of(Map.of("round_robin", Map.of())))))
        .disableServiceConfigLookUp().transports("inprocess").usePlaintext().build();
    channels.add(c);
    for (int i = 0; i < 20; i++) {
      assertThat(who(c)).isEqualTo("s0");
    }
  }

  @Test
  void anIdleRoundRobinChannelClosesEveryConnectionAndTheNextCallReconnects() throws Exception {
    servers(2);
    ManagedChannel c = channel(null, "round_robin", 1);
    callUntilEveryServerAnswered(c);
    assertThat(connected.tryAcquire(2, 10, TimeUnit.SECONDS)).as("a connection to each backend").isTrue();
    CountDownLatch idle = new CountDownLatch(1);
    watch(c, ConnectivityState.IDLE, idle);
    assertThat(idle.await(20, TimeUnit.SECONDS)).as("the channel went idle").isTrue();
    assertThat(who(c)).isIn("s0", "s1");
    assertThat(connected.tryAcquire(1, 10, TimeUnit.SECONDS)).as("a connection made again after idle").isTrue();
  }

  /**
   * A call that starts the moment the channel reports IDLE (from the state callback itself) still
   * finds the old policy stopped: it connects again rather than riding the connections the idle
   * channel is closing, and the channel leaves IDLE.
   */
  @Test
  void aCallStartedAsTheChannelGoesIdleConnectsAgain() throws Exception {
    servers(2);
    ManagedChannel c = channel(null, "round_robin", 1);
    for (int round = 0; round < 3; round++) {
      callUntilEveryServerAnswered(c);
      connected.drainPermits();
      java.util.concurrent.CompletableFuture<String> answer = new java.util.concurrent.CompletableFuture<>();
      CountDownLatch idle = new CountDownLatch(1);
      watch(c, ConnectivityState.IDLE, idle, () -> answer.complete(who(c)));
      assertThat(idle.await(20, TimeUnit.SECONDS)).as("the channel went idle").isTrue();
      assertThat(answer.get(20, TimeUnit.SECONDS)).isIn("s0", "s1");
      assertThat(connected.tryAcquire(1, 10, TimeUnit.SECONDS)).as("round %d: a connection made again", round).isTrue();
      assertThat(c.getState(false)).as("round %d: the channel left IDLE", round).isNotEqualTo(ConnectivityState.IDLE);
    }
  }

  private static void watch(ManagedChannel c, ConnectivityState wanted, CountDownLatch reached, Runnable then) {
    ConnectivityState now = c.getState(false);
    if (now == wanted) {
      then.run();
      reached.countDown();
      return;
    }
    c.notifyWhenStateChanged(now, () -> watch(c, wanted, reached, then));
  }

  private static void watch(ManagedChannel c, ConnectivityState wanted, CountDownLatch reached) {
    watch(c, wanted, reached, () -> { });
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).as("channel terminated").isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
