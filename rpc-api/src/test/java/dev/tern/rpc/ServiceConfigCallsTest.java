package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A channel's service config applied to real calls over the in-process transport, as grpc-java's
 * channel applies it: timeout, waitForReady, message limits, and the policies handed on in the call
 * options (seen by a stream tracer, which gets the options the call layer runs with).
 */
@Timeout(30)
class ServiceConfigCallsTest {
  private final InProcessAddress address = new InProcessAddress("service-config-" + UUID.randomUUID());
  private final List<AutoCloseable> closers = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closers) {
      c.close();
    }
  }

  private Server server() throws Exception {
    Server s = TernServerBuilder.create().listen("inprocess", address).addService(TestMethods.service()).build()
        .start();
    closers.add(0, () -> {
      s.shutdownNow();
      assertThat(s.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    });
    return s;
  }

  private ManagedChannel channel(TernChannelBuilder builder) {
    ManagedChannel c = builder.transports("inprocess").usePlaintext().build();
    closers.add(0, () -> {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    });
    return c;
  }

  private ManagedChannel channel(Map<String, ?> serviceConfig) {
    return channel(TernChannelBuilder.forAddress(address).defaultServiceConfig(serviceConfig));
  }

  private static Map<String, ?> forEcho(Object... keysAndValues) {
    Map<String, Object> entry = new java.util.LinkedHashMap<>();
    entry.put("name", List.of(Map.of("service", "test.Echo")));
    for (int i = 0; i < keysAndValues.length; i += 2) {
      entry.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return Map.of("methodConfig", List.of(entry));
  }

  private static final Map<String, ?> RETRY = Map.of("maxAttempts", 10, "initialBackoff", "0.1s",
      "maxBackoff", "1s", "backoffMultiplier", 2, "retryableStatusCodes", List.of("UNAVAILABLE"));

  /** Call options that record, at the call's start, the options the call layer runs with. */
  private static CallOptions recording(CompletableFuture<CallOptions> seen) {
    return CallOptions.DEFAULT.withStreamTracerFactory(new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
        seen.complete(info.getCallOptions());
        return new ClientStreamTracer() { };
      }
    });
  }

  private static Status statusOrOk(Supplier<?> call) {
    try {
      call.get();
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  private static Status statusOf(Supplier<?> call) {
    try {
      call.get();
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void aCallPastTheConfigsTimeoutFailsWithGrpcJavasWording() throws Exception {
    server();
    ManagedChannel channel = channel(forEcho("timeout", "0.2s"));
    // Connected, and the call path warmed by one quick call (whatever its outcome), first: on a
    // loaded machine a first connect or a first call's class loading can outlast the 0.2 s, and
    // the wording's bracket then says waiting_for_connection.
    statusOrOk(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "warm"));
    Status s = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.SLOW,
        CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), "x"));
    assertThat(s.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    // grpc-java gives the config's timeout to the call as its CallOptions deadline, and words it so.
    // The figure is how late the timer ran, and the bracket where the call was (on a stream, or on a
    // loaded machine still waiting for one): the wording is checked, not those.
    assertThat(s.getDescription()).matches(
        "CallOptions deadline exceeded after \\d+\\.\\d+s\\. \\[(remote_addr=.*|waiting_for_connection)\\]");
  }

  @Test
  void theEarlierDeadlineWinsAndTheTimeoutCountsFromTheStart() throws Exception {
    server();
    ManagedChannel channel = channel(forEcho("timeout", "30s"));
    CompletableFuture<CallOptions> own = new CompletableFuture<>();
    ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, recording(own).withDeadlineAfter(2, TimeUnit.SECONDS),
        "a");
    assertThat(own.get(5, TimeUnit.SECONDS).getDeadline().timeRemaining(TimeUnit.SECONDS))
        .as("the call's own, earlier deadline").isLessThanOrEqualTo(2);

    CompletableFuture<CallOptions> fromConfig = new CompletableFuture<>();
    io.grpc.ClientCall<String, String> call = channel.newCall(TestMethods.UNARY, recording(fromConfig));
    long made = System.nanoTime();
    CompletableFuture<String> reply = new CompletableFuture<>();
    call.start(new io.grpc.ClientCall.Listener<String>() {
      @Override public void onMessage(String message) { reply.complete(message); }

      @Override public void onClose(Status status, Metadata trailers) {
        if (!status.isOk()) {
          reply.completeExceptionally(status.asRuntimeException());
        }
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage("b");
    call.halfClose();
    assertThat(reply.get(5, TimeUnit.SECONDS)).isEqualTo("b");
    io.grpc.Deadline deadline = fromConfig.get(5, TimeUnit.SECONDS).getDeadline();
    long before = System.nanoTime();
    long remaining = deadline.timeRemaining(TimeUnit.NANOSECONDS);
    // deadline >= remaining + before: it was set at start, after the call was made, as grpc-java does.
    assertThat(remaining + before - made).as("the deadline counts 30 s from the call's start, not its creation")
        .isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(30));
    assertThat(remaining).isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(30));
  }

  @Test
  void waitForReadyFromTheConfigMakesACallWaitForALateServer() throws Exception {
    ManagedChannel channel = channel(TernChannelBuilder.forAddress(address)
        .initialReconnectBackoff(50, TimeUnit.MILLISECONDS)
        .defaultServiceConfig(forEcho("waitForReady", true)));
    CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> ClientCalls.blockingUnaryCall(channel,
        TestMethods.UNARY, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "waited"));
    awaitState(channel, ConnectivityState.TRANSIENT_FAILURE);
    assertThat(call).as("no server yet: the call must wait").isNotDone();
    server();
    assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("waited");
  }

  @Test
  void waitForReadyFalseInTheConfigOverridesTheCalls() {
    ManagedChannel channel = channel(forEcho("waitForReady", false));
    Status s = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(20, TimeUnit.SECONDS), "x"));
    assertThat(s.getCode()).as("failed fast, as without waitForReady").isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void aResponseOverMaxResponseMessageBytesFailsResourceExhausted() throws Exception {
    server();
    ManagedChannel channel = channel(forEcho("maxResponseMessageBytes", 4));
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "four"))
        .isEqualTo("four");
    Status s = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT,
        "fives"));
    assertThat(s.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(s.getDescription()).isEqualTo("gRPC message exceeds maximum size 4: 5");
    Status smaller = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withMaxInboundMessageSize(2), "abc"));
    assertThat(smaller.getDescription()).as("the call's smaller limit wins")
        .isEqualTo("gRPC message exceeds maximum size 2: 3");
  }

  @Test
  void aRequestOverMaxRequestMessageBytesIsRefused() throws Exception {
    server();
    ManagedChannel channel = channel(forEcho("maxRequestMessageBytes", 3));
    Status s = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT,
        "four"));
    assertThat(s.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(s.getDescription()).isEqualTo("message too large 4 > 3");
  }

  @Test
  void thePolicyReachesTheCallOptionsCappedByTheBuilder() throws Exception {
    server();
    ManagedChannel channel = channel(TernChannelBuilder.forAddress(address).maxRetryAttempts(3)
        .defaultServiceConfig(forEcho("retryPolicy", RETRY, "waitForReady", true, "maxResponseMessageBytes", 100)));
    CompletableFuture<CallOptions> seen = new CompletableFuture<>();
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, recording(seen), "x")).isEqualTo("x");
    CallOptions effective = seen.get(5, TimeUnit.SECONDS);
    assertThat(effective.getOption(TernCallOptions.RETRY_POLICY)).isEqualTo(RetryPolicy.of(3,
        TimeUnit.MILLISECONDS.toNanos(100), TimeUnit.SECONDS.toNanos(1), 2, null, Set.of(Status.Code.UNAVAILABLE)));
    assertThat(effective.getOption(TernCallOptions.HEDGING_POLICY)).isNull();
    assertThat(effective.isWaitForReady()).isTrue();
    assertThat(effective.getMaxInboundMessageSize()).isEqualTo(100);

    ManagedChannel hedged = channel(TernChannelBuilder.forAddress(address).maxHedgedAttempts(2)
        .defaultServiceConfig(forEcho("hedgingPolicy", Map.of("maxAttempts", 4, "hedgingDelay", "0s"))));
    CompletableFuture<CallOptions> hedgedSeen = new CompletableFuture<>();
    ClientCalls.blockingUnaryCall(hedged, TestMethods.UNARY, recording(hedgedSeen), "x");
    assertThat(hedgedSeen.get(5, TimeUnit.SECONDS).getOption(TernCallOptions.HEDGING_POLICY))
        .isEqualTo(HedgingPolicy.of(2, 0, Set.of()));
  }

  @Test
  void disableRetryLeavesThePoliciesOut() throws Exception {
    server();
    ManagedChannel channel = channel(TernChannelBuilder.forAddress(address).disableRetry()
        .defaultServiceConfig(forEcho("retryPolicy", RETRY)));
    CompletableFuture<CallOptions> seen = new CompletableFuture<>();
    ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, recording(seen), "x");
    assertThat(seen.get(5, TimeUnit.SECONDS).getOption(TernCallOptions.RETRY_POLICY)).isNull();
  }

  @Test
  void anIgnoredPolicyIsLoggedOncePerChannel() throws Exception {
    // rpc-api's tests never have the resilience module on their class path: the warning must come.
    assertThat(ServiceConfigInterceptor.resilienceOnClassPath()).isFalse();
    server();
    Logger logger = Logger.getLogger(ServiceConfigInterceptor.class.getName());
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler handler = new Handler() {
      @Override public void publish(LogRecord r) { records.add(r); }

      @Override public void flush() {}

      @Override public void close() {}
    };
    logger.addHandler(handler);
    try {
      ManagedChannel channel = channel(forEcho("retryPolicy", RETRY));
      for (int i = 0; i < 3; i++) {
        ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "x");
        ClientCalls.blockingUnaryCall(channel, TestMethods.BIDI.toBuilder()
            .setType(io.grpc.MethodDescriptor.MethodType.UNARY).build(), CallOptions.DEFAULT, "y");
      }
      assertThat(records).hasSize(1);
      LogRecord r = records.get(0);
      assertThat(r.getLevel()).isEqualTo(Level.WARNING);
      assertThat(r.getMessage()).contains("retry policy of method test.Echo/Unary is ignored")
          .contains(ServiceConfigInterceptor.RESILIENCE_ENTRY_POINT).contains("not on the class path");

      ManagedChannel other = channel(forEcho("retryPolicy", RETRY));
      ClientCalls.blockingUnaryCall(other, TestMethods.UNARY, CallOptions.DEFAULT, "x");
      assertThat(records).as("once per channel: a second channel logs its own").hasSize(2);
      ManagedChannel none = channel(forEcho("timeout", "10s"));
      ClientCalls.blockingUnaryCall(none, TestMethods.UNARY, CallOptions.DEFAULT, "x");
      assertThat(records).as("a channel without policies logs nothing").hasSize(2);
    } finally {
      logger.removeHandler(handler);
    }
  }

  @Test
  void eachCallReadsTheHoldersCurrentConfig() throws Exception {
    server();
    ManagedChannel plain = channel(TernChannelBuilder.forAddress(address));
    AtomicReference<ServiceConfigs> holder = new AtomicReference<>(ServiceConfigs.empty());
    Channel configured = ClientInterceptors.intercept(plain,
        new ServiceConfigInterceptor(holder, "test", true));
    assertThat(ClientCalls.blockingUnaryCall(configured, TestMethods.UNARY, CallOptions.DEFAULT, "fives"))
        .isEqualTo("fives");
    holder.set(ServiceConfigs.parse(forEcho("maxResponseMessageBytes", 4, "retryPolicy", RETRY)));
    Status s = statusOf(() -> ClientCalls.blockingUnaryCall(configured, TestMethods.UNARY, CallOptions.DEFAULT,
        "fives"));
    assertThat(s.getDescription()).isEqualTo("gRPC message exceeds maximum size 4: 5");
    holder.set(ServiceConfigs.empty());
    assertThat(ClientCalls.blockingUnaryCall(configured, TestMethods.UNARY, CallOptions.DEFAULT, "fives"))
        .isEqualTo("fives");
  }

  @Test
  void theBuilderChecksTheDefaultConfigAtOnce() {
    TernChannelBuilder b = TernChannelBuilder.forAddress(address);
    assertThatThrownBy(() -> b.defaultServiceConfig(Map.of("methodConfig", List.of(
        Map.of("name", List.of(Map.of("service", "a.A")), "timeout", "1s"),
        Map.of("name", List.of(Map.of("service", "b.B")), "timeout", "1x")))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("methodConfig[1].timeout: '1x' is not a duration");
    assertThatThrownBy(() -> b.maxRetryAttempts(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxRetryAttempts must be >= 1, was 0");
    assertThatThrownBy(() -> b.maxHedgedAttempts(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxHedgedAttempts must be >= 1, was -1");
    assertThat(b.defaultServiceConfig(null).disableServiceConfigLookUp()).isSameAs(b);
  }

  private static void awaitState(ManagedChannel channel, ConnectivityState wanted) throws Exception {
    CompletableFuture<Void> reached = new CompletableFuture<>();
    Runnable[] check = new Runnable[1];
    check[0] = () -> {
      ConnectivityState s = channel.getState(false);
      if (s == wanted) {
        reached.complete(null);
      } else {
        channel.notifyWhenStateChanged(s, check[0]);
      }
    };
    check[0].run();
    reached.get(10, TimeUnit.SECONDS);
  }
}
