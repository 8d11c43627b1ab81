package dev.tern.rpc.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.resilience.ScriptedServer.Reply;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Hedging policies from the service config, carried out against a real server over TCP. */
@Timeout(60)
class HedgingTest {
  private final RecordingListener events = new RecordingListener();
  private ScriptedServer server;
  private ManagedChannel channel;

  @BeforeEach
  void setUp() throws Exception {
    server = new ScriptedServer(b -> b.listen("tcp", new InetSocketAddress("127.0.0.1", 0)));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    server.close();
  }

  private ManagedChannel channel(int maxAttempts, String delay, String... nonFatal) {
    Map<String, Object> hedging = Map.of("maxAttempts", maxAttempts, "hedgingDelay", delay,
        "nonFatalStatusCodes", List.of(nonFatal));
    channel = TernChannelBuilder.forAddress("127.0.0.1", server.port()).transports("tcp").usePlaintext()
        .defaultServiceConfig(Map.of("methodConfig", List.of(Map.of(
            "name", List.of(Map.of("service", "test.Scripted")), "hedgingPolicy", hedging))))
        .callPolicyProvider(TernResilience.newBuilder().listener(events).build()).build();
    return channel;
  }

  private static String call(ManagedChannel c, String key) {
    return ClientCalls.blockingUnaryCall(c, ScriptedServer.CALL,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), key);
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  @Test
  void hedgedCopiesGoOutAfterTheDelayAndTheLosersAreCancelled() throws Exception {
    // The first two copies never answer; the third answers at once.
    server.script = (k, n) -> k.equals("warm") || n >= 3 ? Reply.ok() : new Reply(Status.OK, true, null, false, -1);
    ManagedChannel c = channel(3, "0.2s");
    assertThat(call(c, "warm")).as("connected first, so the copies' timing is the hedging delay's").isEqualTo("warm");
    events.events.clear();
    events.hedgeNanos.clear();

    long start = System.nanoTime();
    assertThat(call(c, "h")).isEqualTo("h");

    assertThat(server.arrivals("h")).isEqualTo(3);
    assertThat(server.previousAttempts.get("h")).containsExactly("null", "1", "2");
    assertThat(events.hedgeNanos).hasSize(2);
    for (int i = 1; i <= 2; i++) {
      assertThat(TimeUnit.NANOSECONDS.toMillis(events.hedgeNanos.get(i - 1) - start))
          .as("copy %d went out after %d hedging delays", i, i).isGreaterThanOrEqualTo(200L * i);
    }
    await(() -> server.cancelledAttempts.getOrDefault("h", List.of()).containsAll(List.of(1, 2)),
        "the two losing copies were cancelled at the server");
    assertThat(events.events).containsExactly("hedge 1", "hedge 2");
  }

  @Test
  void theFirstAnswerWinsAndNoFurtherCopyIsSent() throws Exception {
    // The first copy answers after 400 ms: one more copy went out at 100 ms and is cancelled.
    server.script = (k, n) -> k.equals("warm") ? Reply.ok()
        : n == 1 ? Reply.ok().delayed(400) : new Reply(Status.OK, true, null, false, -1);
    ManagedChannel c = channel(5, "0.25s");
    assertThat(call(c, "warm")).isEqualTo("warm");

    assertThat(call(c, "w")).isEqualTo("w");
    int sent = server.arrivals("w");
    assertThat(sent).as("copies sent before the first answer, at 0, 250 ms (and 500 ms if slow)").isBetween(2, 3);
    await(() -> {
      List<Integer> cancelled = server.cancelledAttempts.getOrDefault("w", List.of());
      for (int n = 2; n <= server.arrivals("w"); n++) {
        if (!cancelled.contains(n)) {
          return false;
        }
      }
      return true;
    }, "every copy but the first was cancelled");
    assertThat(server.processed("w")).isEqualTo(1);
  }

  @Test
  void aFatalCodeEndsTheCallBeforeTheNextCopy() throws Exception {
    server.script = (k, n) -> new Reply(Status.INVALID_ARGUMENT, true, null, false, 0);
    ManagedChannel c = channel(3, "10s", "UNAVAILABLE");

    long start = System.nanoTime();
    try {
      call(c, "fatal");
      fail("the call succeeded");
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    }
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).as("ended by the first answer").isLessThan(10);
    assertThat(server.arrivals("fatal")).isEqualTo(1);
    assertThat(events.events).isEmpty();
  }

  @Test
  void aNonFatalCodeLetsTheNextCopyGo() throws Exception {
    server.script = (k, n) -> n == 1 ? Reply.refused(Status.Code.UNAVAILABLE) : Reply.ok();
    ManagedChannel c = channel(3, "0.1s", "UNAVAILABLE");

    assertThat(call(c, "nonfatal")).isEqualTo("nonfatal");
    assertThat(server.arrivals("nonfatal")).isEqualTo(2);
    assertThat(server.previousAttempts.get("nonfatal")).containsExactly("null", "1");
  }

  @Test
  void aNegativePushbackStopsFurtherCopies() throws Exception {
    server.script = (k, n) -> k.equals("warm") ? Reply.ok() : Reply.refused(Status.Code.UNAVAILABLE).withPushback("-1");
    ManagedChannel c = channel(4, "1s", "UNAVAILABLE");
    assertThat(call(c, "warm")).isEqualTo("warm");

    try {
      call(c, "stop");
      fail("the call succeeded");
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    }
    assertThat(server.arrivals("stop")).isEqualTo(1);
  }
}
