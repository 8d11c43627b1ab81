package dev.tern.rpc.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.resilience.ScriptedServer.Reply;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Retry policies from the service config, carried out against a real server over TCP. */
@Timeout(60)
class RetryTest {
  private final RecordingListener events = new RecordingListener();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private ScriptedServer server;

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  private ScriptedServer server() throws Exception {
    server = new ScriptedServer(b -> b.listen("tcp", new InetSocketAddress("127.0.0.1", 0)));
    closeables.add(server);
    return server;
  }

  private static Map<String, Object> retryPolicy(int maxAttempts, String initial, String max, double multiplier,
      String... codes) {
    return Map.of("maxAttempts", maxAttempts, "initialBackoff", initial, "maxBackoff", max,
        "backoffMultiplier", multiplier, "retryableStatusCodes", List.of(codes));
  }

  private static Map<String, Object> config(Map<String, Object> retryPolicy, Map<String, Object> throttling) {
    Map<String, Object> mc = Map.of("name", List.of(Map.of("service", "test.Scripted")), "retryPolicy", retryPolicy);
    return throttling == null ? Map.of("methodConfig", List.of(mc))
        : Map.of("methodConfig", List.of(mc), "retryThrottling", throttling);
  }

  private ManagedChannel channel(Map<String, ?> serviceConfig, TernChannelBuilder b) {
    ManagedChannel c = b.transports("tcp").usePlaintext().defaultServiceConfig(serviceConfig)
        .callPolicyProvider(TernResilience.newBuilder().listener(events).build()).build();
    closeables.add(0, () -> {
      c.shutdownNow();
      c.awaitTermination(10, TimeUnit.SECONDS);
    });
    return c;
  }

  private ManagedChannel channel(Map<String, ?> serviceConfig) {
    return channel(serviceConfig, TernChannelBuilder.forAddress("127.0.0.1", server.port()));
  }

  private static String call(ManagedChannel c, String key) {
    return ClientCalls.blockingUnaryCall(c, ScriptedServer.CALL,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), key);
  }

  private static Status.Code failure(ManagedChannel c, String key) {
    try {
      call(c, key);
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void aRetryableCodeIsRetriedUpToMaxAttemptsWithTheBackoff() throws Exception {
    server().script = (k, n) -> Reply.refused(Status.Code.UNAVAILABLE);
    ManagedChannel c = channel(config(retryPolicy(4, "0.05s", "0.15s", 2, "UNAVAILABLE"), null));

    assertThat(failure(c, "a")).isEqualTo(Status.Code.UNAVAILABLE);

    assertThat(server.arrivals("a")).isEqualTo(4);
    assertThat(server.previousAttempts.get("a")).as("grpc-previous-rpc-attempts on each new attempt")
        .containsExactly("null", "1", "2", "3");
    // gRFC A6: the n-th retry waits random(0, min(0.05 s * 2^(n-1), 0.15 s)).
    assertThat(events.waits).hasSize(3);
    assertThat(events.waits.get(0)).isLessThanOrEqualTo(Duration.ofMillis(50));
    assertThat(events.waits.get(1)).isLessThanOrEqualTo(Duration.ofMillis(100));
    assertThat(events.waits.get(2)).isLessThanOrEqualTo(Duration.ofMillis(150));
    List<Long> at = server.arrivalNanos.get("a");
    for (int i = 1; i < at.size(); i++) {
      assertThat(TimeUnit.NANOSECONDS.toMillis(at.get(i) - at.get(i - 1)))
          .as("the retry waited its backoff").isGreaterThanOrEqualTo(events.waits.get(i - 1).toMillis());
    }
    assertThat(events.events).contains("exhausted UNAVAILABLE");
  }

  @Test
  void aCallThatSucceedsOnItsThirdAttemptReturnsItsAnswerAndRanOnce() throws Exception {
    server().script = (k, n) -> n < 3 ? Reply.refused(Status.Code.UNAVAILABLE) : Reply.ok();
    ManagedChannel c = channel(config(retryPolicy(5, "0.01s", "0.05s", 2, "UNAVAILABLE"), null));

    assertThat(call(c, "b")).isEqualTo("b");
    assertThat(server.arrivals("b")).isEqualTo(3);
    assertThat(server.processed("b")).isEqualTo(1);
    assertThat(events.events).containsExactly("retry 1 UNAVAILABLE", "retry 2 UNAVAILABLE", "succeeded after 2");
  }

  /** What the module hears from resilience4j's events reaches the channel's metrics registry. */
  @Test
  void retriesAreCountedInTheChannelsMetrics() throws Exception {
    dev.tern.rpc.metrics.TernMetrics metrics = dev.tern.rpc.metrics.TernMetrics.create();
    server().script = (k, n) -> k.startsWith("ok") && n < 3 || k.startsWith("no") ? Reply.refused(Status.Code.UNAVAILABLE)
        : k.startsWith("bad") ? new Reply(Status.INTERNAL.withDescription("boom"), true, null, false, 0) : Reply.ok();
    ManagedChannel c = channel(config(retryPolicy(3, "0.01s", "0.05s", 2, "UNAVAILABLE"), null),
        TernChannelBuilder.forAddress("127.0.0.1", server.port()).metrics(metrics, "feed"));

    assertThat(call(c, "ok")).isEqualTo("ok");
    assertThat(failure(c, "no")).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failure(c, "bad")).isEqualTo(Status.Code.INTERNAL);

    dev.tern.rpc.metrics.CallPolicyMetrics m = metrics.callPolicies("feed");
    assertThat(metrics.callPolicies()).containsExactly(m);
    assertThat(m.retriesScheduled()).as("2 for ok, 2 for no").isEqualTo(4);
    assertThat(m.callsSucceededAfterRetries()).isEqualTo(1);
    assertThat(m.callsWithRetriesExhausted()).isEqualTo(1);
    assertThat(m.attemptsNotRetried()).isEqualTo(1);
    // Five UNAVAILABLE attempts of the first six: tcp's breaker opened (50% of at least 5).
    assertThat(m.breakerStates()).containsEntry("tcp", dev.tern.rpc.metrics.CallPolicyMetrics.BreakerState.OPEN);
    assertThat(m.breakerOpened("tcp")).isEqualTo(1);
  }

  @Test
  void aCodeOutsideThePolicyIsNotRetried() throws Exception {
    server().script = (k, n) -> new Reply(Status.INTERNAL.withDescription("boom"), true, null, false, 0);
    ManagedChannel c = channel(config(retryPolicy(5, "0.01s", "0.05s", 2, "UNAVAILABLE"), null));

    assertThat(failure(c, "c")).isEqualTo(Status.Code.INTERNAL);
    assertThat(server.arrivals("c")).isEqualTo(1);
    assertThat(events.events).singleElement().asString().startsWith("not retried INTERNAL");
  }

  @Test
  void aCallIsCommittedOnceResponseHeadersArriveAndNeverReplayed() throws Exception {
    // Processed, headers sent, then UNAVAILABLE: a retryable code, but the call was committed.
    server().script = (k, n) -> new Reply(Status.UNAVAILABLE.withDescription("after headers"), true, null, true, 0);
    ManagedChannel c = channel(config(retryPolicy(5, "0.01s", "0.05s", 2, "UNAVAILABLE"), null));

    assertThat(failure(c, "d")).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.arrivals("d")).isEqualTo(1);
    assertThat(server.processed("d")).isEqualTo(1);
  }

  @Test
  void thePushbackIsTheWaitAndANegativeOrMalformedOneStopsRetrying() throws Exception {
    server().script = (k, n) -> {
      if (k.equals("wait") && n == 1) {
        return Reply.refused(Status.Code.UNAVAILABLE).withPushback("400");
      }
      if (k.equals("negative")) {
        return Reply.refused(Status.Code.UNAVAILABLE).withPushback("-1");
      }
      if (k.equals("malformed")) {
        return Reply.refused(Status.Code.UNAVAILABLE).withPushback("soon");
      }
      return Reply.ok();
    };
    // Without the pushback every wait would be 1 ms at most.
    ManagedChannel c = channel(config(retryPolicy(5, "0.001s", "0.001s", 1, "UNAVAILABLE"), null));

    assertThat(call(c, "wait")).isEqualTo("wait");
    List<Long> at = server.arrivalNanos.get("wait");
    assertThat(at).hasSize(2);
    assertThat(events.waits).containsExactly(Duration.ofMillis(400));
    assertThat(TimeUnit.NANOSECONDS.toMillis(at.get(1) - at.get(0))).isGreaterThanOrEqualTo(400);

    assertThat(failure(c, "negative")).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.arrivals("negative")).isEqualTo(1);
    assertThat(failure(c, "malformed")).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.arrivals("malformed")).isEqualTo(1);
    assertThat(events.events).filteredOn(e -> e.contains("pushback")).hasSize(2);
  }

  @Test
  void throttlingStopsRetriesOnceHalfTheTokensAreGone() throws Exception {
    server().script = (k, n) -> Reply.refused(Status.Code.UNAVAILABLE);
    // 4 tokens: retries only while more than 2 are left; every failure takes one.
    ManagedChannel c = channel(config(retryPolicy(5, "0.001s", "0.001s", 1, "UNAVAILABLE"),
        Map.of("maxTokens", 4, "tokenRatio", 0.1)));

    assertThat(failure(c, "first")).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.arrivals("first")).as("4 -> 3 tokens: one retry; 3 -> 2: no more").isEqualTo(2);
    assertThat(failure(c, "second")).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.arrivals("second")).as("throttled: made once").isEqualTo(1);
    assertThat(events.events).contains("not retried UNAVAILABLE: retries are throttled (retryThrottling)");
  }

  @Test
  void aRequestLargerThanTheReplayBufferIsNotRetried() throws Exception {
    server().script = (k, n) -> Reply.refused(Status.Code.UNAVAILABLE);
    ManagedChannel c = channel(config(retryPolicy(5, "0.001s", "0.001s", 1, "UNAVAILABLE"), null),
        TernChannelBuilder.forAddress("127.0.0.1", server.port()).perRpcBufferLimit(16));

    assertThat(failure(c, "small")).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.arrivals("small")).isEqualTo(5);
    String big = "x".repeat(100);
    assertThat(failure(c, big)).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.arrivals(big)).as("over perRpcBufferLimit: committed to its first attempt").isEqualTo(1);
  }

  @Test
  void anAttemptWithoutResponseHeadersWithinPerAttemptRecvTimeoutIsRetried() throws Exception {
    server().script = (k, n) -> n == 1 ? new Reply(Status.OK, false, null, false, -1) : Reply.ok();
    Map<String, Object> policy = Map.of("maxAttempts", 3, "initialBackoff", "0.001s", "maxBackoff", "0.001s",
        "backoffMultiplier", 1, "retryableStatusCodes", List.of(), "perAttemptRecvTimeout", "0.5s");
    ManagedChannel c = channel(config(policy, null));

    assertThat(call(c, "slow")).isEqualTo("slow");
    assertThat(server.arrivals("slow")).isEqualTo(2);
    assertThat(server.processed("slow")).isEqualTo(1);
  }

  @Test
  void noNonIdempotentCallRunsTwiceThroughRetries() throws Exception {
    // Refused unprocessed (retryable), processed then failed (not retryable), processed after
    // headers then UNAVAILABLE (committed), and plain successes, across 60 calls.
    server().script = (k, n) -> switch (Integer.parseInt(k) % 4) {
      case 0 -> Reply.ok();
      case 1 -> n < 3 ? Reply.refused(Status.Code.UNAVAILABLE) : Reply.ok();
      case 2 -> new Reply(Status.ABORTED, true, null, false, 0);
      default -> new Reply(Status.UNAVAILABLE, true, null, true, 0);
    };
    ManagedChannel c = channel(config(retryPolicy(5, "0.001s", "0.005s", 2, "UNAVAILABLE"), null));
    for (int i = 0; i < 60; i++) {
      String key = Integer.toString(i);
      try {
        assertThat(call(c, key)).isEqualTo(key);
      } catch (StatusRuntimeException e) {
        assertThat(i % 4).isIn(2, 3);
      }
      assertThat(server.processed(key)).as("call %s processed once", key).isEqualTo(1);
    }
  }

  @Test
  void aClientStreamIsReplayedOnTheRetryWithWhatWasSentWhileItWaited() throws Exception {
    // The first attempt is refused at its first message with a 500 ms pushback; the client sends
    // the rest meanwhile; the retry gets the first message again, then the rest, then the half-close.
    server().script = (k, n) -> n == 1 ? Reply.refused(Status.Code.UNAVAILABLE).withPushback("500") : Reply.ok();
    ManagedChannel c = channel(config(retryPolicy(3, "0.001s", "0.001s", 1, "UNAVAILABLE"), null));
    CompletableFuture<String> result = new CompletableFuture<>();
    ClientCall<String, String> call = c.newCall(ScriptedServer.COLLECT,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    StreamObserver<String> out = ClientCalls.asyncClientStreamingCall(call, new StreamObserver<>() {
      @Override public void onNext(String v) { result.complete(v); }

      @Override public void onError(Throwable t) { result.completeExceptionally(t); }

      @Override public void onCompleted() {}
    });
    out.onNext("a");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (server.arrivals("a") < 1 && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    out.onNext("b");
    out.onNext("c");
    out.onCompleted();

    assertThat(result.get(20, TimeUnit.SECONDS)).isEqualTo("abc");
    assertThat(server.arrivals("a")).isEqualTo(2);
    assertThat(server.collected).as("only the retry reached its half-close, with every message once")
        .containsExactly("abc");
  }

  @Test
  void theModuleOnTheClassPathIsFoundWithoutBeingGiven() throws Exception {
    server().script = (k, n) -> n < 2 ? Reply.refused(Status.Code.UNAVAILABLE) : Reply.ok();
    ManagedChannel c = TernChannelBuilder.forAddress("127.0.0.1", server.port()).transports("tcp").usePlaintext()
        .defaultServiceConfig(config(retryPolicy(3, "0.001s", "0.001s", 1, "UNAVAILABLE"), null)).build();
    closeables.add(0, () -> {
      c.shutdownNow();
      c.awaitTermination(10, TimeUnit.SECONDS);
    });
    assertThat(call(c, "found")).isEqualTo("found");
    assertThat(server.arrivals("found")).isEqualTo(2);
  }

  @Test
  void aChannelGivenNoProviderMakesEachCallOnce() throws Exception {
    server().script = (k, n) -> n < 2 ? Reply.refused(Status.Code.UNAVAILABLE) : Reply.ok();
    ManagedChannel c = TernChannelBuilder.forAddress("127.0.0.1", server.port()).transports("tcp").usePlaintext()
        .defaultServiceConfig(config(retryPolicy(3, "0.001s", "0.001s", 1, "UNAVAILABLE"), null))
        .callPolicyProvider(null).build();
    closeables.add(0, () -> {
      c.shutdownNow();
      c.awaitTermination(10, TimeUnit.SECONDS);
    });
    assertThat(failure(c, "none")).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.arrivals("none")).isEqualTo(1);
  }
}
