package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.BinaryLog;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.HandlerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grpc-java's server-builder methods do on a Tern server what they do on a grpc-java one, shown
 * over the in-process transport where the behaviour does not depend on the transport (the rows of
 * docs/builder-methods.md name these tests).
 */
@Timeout(30)
class ServerBuilderMethodsTest {
  private static final Metadata.Key<String> BIG = Metadata.Key.of("big", Metadata.ASCII_STRING_MARSHALLER);

  private final InProcessAddress address = new InProcessAddress("server-builder-" + UUID.randomUUID());
  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<ExecutorService> pools = new ArrayList<>();

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
    pools.forEach(ExecutorService::shutdownNow);
  }

  private Server start(TernServerBuilder b) throws Exception {
    Server s = b.listen("inprocess", address).build().start();
    servers.add(s);
    return s;
  }

  private ManagedChannel channel() {
    ManagedChannel c = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext().build();
    channels.add(c);
    return c;
  }

  private static String unary(Channel channel, MethodDescriptor<String, String> method, String request) {
    return ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, request);
  }

  private static Status statusOf(Runnable call) {
    try {
      call.run();
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  /** A service {@code name} with one unary method that answers with the handler thread's name. */
  private static ServerServiceDefinition threadNaming(String name) {
    return ServerServiceDefinition.builder(name)
        .addMethod(method(name), ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext(name + " on " + Thread.currentThread().getName());
          obs.onCompleted();
        }))
        .build();
  }

  private static MethodDescriptor<String, String> method(String service) {
    return TestMethods.method("Call", MethodDescriptor.MethodType.UNARY).toBuilder()
        .setFullMethodName(MethodDescriptor.generateFullMethodName(service, "Call")).build();
  }

  @Test
  void executorRunsTheHandlers() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    ExecutorService pool = Executors.newCachedThreadPool(r -> new Thread(r, "app-handlers"));
    pools.add(pool);
    start(TernServerBuilder.create().addService(threadNaming("t.Svc")).executor(task -> {
      ran.incrementAndGet();
      pool.execute(task);
    }));

    assertThat(unary(channel(), method("t.Svc"), "x")).isEqualTo("t.Svc on app-handlers");
    assertThat(ran.get()).as("tasks given to the executor").isPositive();
  }

  @Test
  void directExecutorRunsHandlersOnTheTransportsThread() throws Exception {
    start(TernServerBuilder.create().addService(threadNaming("t.Svc")).directExecutor());
    assertThat(unary(channel(), method("t.Svc"), "x")).startsWith("t.Svc on tern-inprocess-");
  }

  @Test
  void withoutAnExecutorHandlersRunOnTheServersOwnPool() throws Exception {
    start(TernServerBuilder.create().addService(threadNaming("t.Svc")));
    assertThat(unary(channel(), method("t.Svc"), "x")).startsWith("t.Svc on tern-server-executor");
  }

  @Test
  void addServicesServesEachOne() throws Exception {
    start(TernServerBuilder.create().addServices(List.of(threadNaming("a.Svc"), threadNaming("b.Svc"))));
    ManagedChannel channel = channel();

    assertThat(unary(channel, method("a.Svc"), "x")).startsWith("a.Svc on ");
    assertThat(unary(channel, method("b.Svc"), "x")).startsWith("b.Svc on ");
    assertThat(servers.get(0).getServices()).extracting(s -> s.getServiceDescriptor().getName())
        .containsExactlyInAnyOrder("a.Svc", "b.Svc");
  }

  @Test
  void theFallbackRegistryServesMethodsNoServiceHas() throws Exception {
    ServerServiceDefinition fallbackService = threadNaming("fallback.Svc");
    List<String> askedFor = new CopyOnWriteArrayList<>();
    HandlerRegistry fallback = new HandlerRegistry() {
      @Override
      public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
        askedFor.add(methodName);
        return fallbackService.getMethod(methodName);
      }
    };
    start(TernServerBuilder.create().addService(TestMethods.service()).fallbackHandlerRegistry(fallback));
    ManagedChannel channel = channel();

    assertThat(unary(channel, TestMethods.UNARY, "added")).isEqualTo("added");
    assertThat(askedFor).as("a method an added service has is not looked up in the fallback").isEmpty();
    assertThat(unary(channel, method("fallback.Svc"), "x")).startsWith("fallback.Svc on ");
    Status unknown = statusOf(() -> unary(channel, method("nobody.Svc"), "x"));
    assertThat(unknown.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(askedFor).containsExactly("fallback.Svc/Call", "nobody.Svc/Call");
  }

  /** An interceptor that appends {@code name} to {@code order} when a call reaches it. */
  private static ServerInterceptor named(String name, List<String> order) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        order.add(name);
        return next.startCall(call, headers);
      }
    };
  }

  @Test
  void interceptorsRunLastAddedFirst() throws Exception {
    List<String> order = new CopyOnWriteArrayList<>();
    start(TernServerBuilder.create().addService(TestMethods.service())
        .intercept(named("first", order)).intercept(named("second", order)).intercept(named("third", order)));

    assertThat(unary(channel(), TestMethods.UNARY, "hi")).isEqualTo("hi");

    assertThat(order).containsExactly("third", "second", "first");
  }

  @Test
  void maxInboundMetadataSizeRefusesLargerRequestHeaders() throws Exception {
    List<String> reached = new CopyOnWriteArrayList<>();
    start(TernServerBuilder.create().addService(TestMethods.service()).intercept(named("handler", reached))
        .maxInboundMetadataSize(2_000));
    ManagedChannel channel = channel();

    assertThat(unary(ChannelBuilderMethodsTest.withHeader(channel, BIG, "h".repeat(1_000)), TestMethods.UNARY, "hi"))
        .as("1,000 bytes fit in 2,000").isEqualTo("hi");
    Status tooLarge = statusOf(() -> unary(ChannelBuilderMethodsTest.withHeader(channel, BIG, "h".repeat(3_000)),
        TestMethods.UNARY, "hi"));

    assertThat(tooLarge.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(tooLarge.getDescription()).contains("request headers")
        .contains("server's maxInboundMetadataSize of 2000");
    assertThat(reached).as("the refused call never reached the server's interceptors").hasSize(1);
    assertThat(unary(channel, TestMethods.UNARY, "again")).as("the channel carries on").isEqualTo("again");
  }

  @Test
  void connectionSettingsReachTheTransport() throws Exception {
    OptionsCapturingProvider capture = new OptionsCapturingProvider("capture", false);
    Server server = TernServerBuilder.create().addTransportProvider(capture).listen("capture", address)
        .addService(TestMethods.service())
        .handshakeTimeout(4, TimeUnit.SECONDS)
        .keepAliveTime(90, TimeUnit.SECONDS)
        .keepAliveTimeout(7, TimeUnit.SECONDS)
        .maxConnectionIdle(11, TimeUnit.MINUTES)
        .permitKeepAliveTime(30, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true)
        .build().start();
    servers.add(server);

    assertThat(unary(channel(), TestMethods.UNARY, "hi")).as("the server serves with them").isEqualTo("hi");

    TransportOptions given = capture.serverOptions.poll(5, TimeUnit.SECONDS);
    assertThat(given.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS)).isEqualTo(4_000L);
    assertThat(given.get(TransportOptions.KEEP_ALIVE_MILLIS)).isEqualTo(90_000L);
    assertThat(given.get(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS)).isEqualTo(7_000L);
    assertThat(given.get(TransportOptions.IDLE_TIMEOUT_MILLIS)).isEqualTo(TimeUnit.MINUTES.toMillis(11));
    assertThat(given.get(TransportOptions.PERMIT_KEEP_ALIVE_MILLIS)).isEqualTo(30_000L);
    assertThat(given.get(TransportOptions.PERMIT_KEEP_ALIVE_WITHOUT_CALLS)).isTrue();
    TransportOptions defaults = TransportOptions.defaults();
    assertThat(defaults.get(TransportOptions.PERMIT_KEEP_ALIVE_WITHOUT_CALLS)).as("refused unless permitted").isFalse();
    assertThat(defaults.get(TransportOptions.PERMIT_KEEP_ALIVE_MILLIS)).as("grpc-java's 5 minutes").isEqualTo(300_000L);
  }

  @Test
  void setBinaryLogWrapsEveryMethodOutsideTheInterceptors() throws Exception {
    List<String> order = new CopyOnWriteArrayList<>();
    BinaryLog log = new BinaryLog() {
      @Override
      public <Q, R> ServerMethodDefinition<?, ?> wrapMethodDefinition(ServerMethodDefinition<Q, R> def) {
        ServerCallHandler<Q, R> inner = def.getServerCallHandler();
        return def.withServerCallHandler((call, headers) -> {
          order.add("binary log: " + call.getMethodDescriptor().getFullMethodName());
          return inner.startCall(call, headers);
        });
      }

      @Override
      public Channel wrapChannel(Channel channel) {
        return channel;
      }

      @Override
      public void close() {}
    };
    ServerServiceDefinition fallbackService = threadNaming("fallback.Svc");
    HandlerRegistry fallback = new HandlerRegistry() {
      @Override
      public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
        return fallbackService.getMethod(methodName);
      }
    };
    start(TernServerBuilder.create().addService(TestMethods.service()).fallbackHandlerRegistry(fallback)
        .intercept(named("interceptor", order)).setBinaryLog(log));
    ManagedChannel channel = channel();

    assertThat(unary(channel, TestMethods.UNARY, "hi")).isEqualTo("hi");
    assertThat(unary(channel, method("fallback.Svc"), "x")).startsWith("fallback.Svc on ");

    assertThat(order).as("the log first, then the interceptors; for added and fallback methods alike")
        .containsExactly("binary log: test.Echo/Unary", "interceptor",
            "binary log: fallback.Svc/Call", "interceptor");
  }
}
