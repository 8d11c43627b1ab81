package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportProvider.VersionHandshake;
import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.SecurityLevel;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The call layer's features over the in-process transport. */
@Timeout(30)
class CallLayerFeaturesTest {
  private static final Metadata.Key<String> AUTH = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private final CapturingProvider provider = new CapturingProvider("capturing", VersionHandshake.IN_TRANSPORT);
  private final CompletableFuture<Metadata> serverHeaders = new CompletableFuture<>();
  private final CompletableFuture<ServerCall<?, ?>> serverCall = new CompletableFuture<>();
  private final CompletableFuture<ConnectionInfo> handlerInfo = new CompletableFuture<>();
  private final CompletableFuture<java.util.Optional<io.grpc.Deadline>> handlerDeadline = new CompletableFuture<>();
  private InProcessAddress address;
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void setUp() throws Exception {
    address = new InProcessAddress("features-" + UUID.randomUUID());
    ServerInterceptor capture = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        serverHeaders.complete(headers);
        serverCall.complete(call);
        handlerInfo.complete(TernServerCalls.connectionInfo());
        handlerDeadline.complete(java.util.Optional.ofNullable(Context.current().getDeadline()));
        call.setCompression("gzip");
        return next.startCall(call, headers);
      }
    };
    server = TernServerBuilder.create().addTransportProvider(provider).listen("capturing", address)
        .addService(TestMethods.service()).intercept(capture).maxInboundMessageSize(10_000).build().start();
    channel = TernChannelBuilder.forAddress(address).addTransportProvider(provider).transports("capturing")
        .usePlaintext().maxInboundMessageSize(20_000).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  private String unary(CallOptions options, String request) {
    return ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, options, request);
  }

  private static Status.Code codeOf(Runnable r) {
    try {
      r.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @Test
  void callCredentialsAddMetadataAndSeeTheRequest() throws Exception {
    CompletableFuture<CallCredentials.RequestInfo> info = new CompletableFuture<>();
    CallCredentials creds = new CallCredentials() {
      @Override
      public void applyRequestMetadata(RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
        info.complete(requestInfo);
        Metadata md = new Metadata();
        md.put(AUTH, "Bearer token-1");
        applier.apply(md);
      }
    };
    assertThat(unary(CallOptions.DEFAULT.withCallCredentials(creds), "x")).isEqualTo("x");
    assertThat(serverHeaders.get(5, TimeUnit.SECONDS).get(AUTH)).isEqualTo("Bearer token-1");
    CallCredentials.RequestInfo ri = info.get(5, TimeUnit.SECONDS);
    assertThat(ri.getMethodDescriptor().getFullMethodName()).isEqualTo("test.Echo/Unary");
    assertThat(ri.getAuthority()).isEqualTo(address.toString());
    assertThat(ri.getSecurityLevel()).isEqualTo(SecurityLevel.NONE);
  }

  @Test
  void failingCallCredentialsFailTheCallWithTheirStatus() {
    CallCredentials creds = new CallCredentials() {
      @Override
      public void applyRequestMetadata(RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
        applier.fail(Status.UNAUTHENTICATED.withDescription("no token in the keychain"));
      }
    };
    assertThatThrownBy(() -> unary(CallOptions.DEFAULT.withCallCredentials(creds), "x"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
          assertThat(e.getStatus().getDescription()).isEqualTo("no token in the keychain");
        });
    assertThat(serverHeaders).isNotDone();
  }

  @Test
  void cancellingTheContextCancelsTheCall() throws Exception {
    Context.CancellableContext ctx = Context.current().withCancellation();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ctx.run(() -> {
      var call = channel.newCall(TestMethods.SLOW, CallOptions.DEFAULT);
      call.start(new io.grpc.ClientCall.Listener<>() {
        @Override public void onClose(Status status, Metadata trailers) { closed.complete(status); }
      }, new Metadata());
      call.sendMessage("x");
      call.halfClose();
      call.request(1);
    });
    ServerCall<?, ?> sc = serverCall.get(5, TimeUnit.SECONDS);
    ctx.cancel(new RuntimeException("user navigated away"));
    assertThat(closed.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!sc.isCancelled() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(sc.isCancelled()).as("server call cancelled").isTrue();
  }

  @Test
  void theEarlierOfContextAndCallOptionsDeadlineWins() throws Exception {
    java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    try {
      Context.CancellableContext shortContext = Context.current().withDeadlineAfter(200, TimeUnit.MILLISECONDS, timer);
      long start = System.nanoTime();
      Status.Code code = shortContext.call(() -> codeOf(() -> ClientCalls.blockingUnaryCall(channel,
          TestMethods.SLOW, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "x")));
      assertThat(code).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms until the context deadline")
          .isLessThan(5_000);
      shortContext.cancel(null);

      Context.CancellableContext longContext = Context.current().withDeadlineAfter(20, TimeUnit.SECONDS, timer);
      start = System.nanoTime();
      code = longContext.call(() -> codeOf(() -> ClientCalls.blockingUnaryCall(channel,
          TestMethods.SLOW, CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), "x")));
      assertThat(code).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms until the call deadline")
          .isLessThan(5_000);
      longContext.cancel(null);
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void gzipTravelsCompressedAndTheServerSeesTheEncoding() throws Exception {
    String text = "compressible ".repeat(500);
    assertThat(unary(CallOptions.DEFAULT.withCompression("gzip"), text)).isEqualTo(text);
    RequestHeaders h = provider.seen.poll(5, TimeUnit.SECONDS);
    assertThat(h.messageEncoding()).isEqualTo("gzip");
    assertThat(TernChannels.connectionInfo(channel).bytesSent()).isLessThan(text.length() / 4);
    assertThat(TernChannels.connectionInfo(channel).bytesReceived()).as("response compressed by setCompression")
        .isLessThan(text.length() / 4);
  }

  @Test
  void anUnknownCompressorFailsTheCall() {
    assertThatThrownBy(() -> unary(CallOptions.DEFAULT.withCompression("snappy"), "x"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
          assertThat(e.getStatus().getDescription()).contains("snappy");
        });
  }

  @Test
  void sizeLimitsFailWithResourceExhausted() {
    assertThat(codeOf(() -> unary(CallOptions.DEFAULT, "x".repeat(15_000)))).as("server inbound limit 10,000")
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(codeOf(() -> unary(CallOptions.DEFAULT.withMaxOutboundMessageSize(100), "x".repeat(200))))
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(codeOf(() -> unary(CallOptions.DEFAULT.withMaxInboundMessageSize(100), "x".repeat(200))))
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(unary(CallOptions.DEFAULT, "x".repeat(9_000))).hasSize(9_000);
  }

  @Test
  void priorityAndEarlyDataComeFromOptionsOrMethodDefaults() throws Exception {
    unary(CallOptions.DEFAULT, "a");
    RequestHeaders plain = provider.seen.poll(5, TimeUnit.SECONDS);
    assertThat(plain.priority()).isEqualTo(Priority.DEFAULT);
    assertThat(plain.earlyDataAllowed()).as("non-idempotent method").isFalse();

    TernMethodOptions.registerDefaultPriority("test.Echo/Unary", Priority.of(1, false));
    try {
      unary(CallOptions.DEFAULT, "b");
      assertThat(provider.seen.poll(5, TimeUnit.SECONDS).priority()).isEqualTo(Priority.of(1, false));
      unary(TernCallOptions.withEarlyData(TernCallOptions.withPriority(CallOptions.DEFAULT, 6, true), true), "c");
      RequestHeaders overridden = provider.seen.poll(5, TimeUnit.SECONDS);
      assertThat(overridden.priority()).isEqualTo(Priority.of(6, true));
      assertThat(overridden.earlyDataAllowed()).isTrue();
    } finally {
      TernMethodOptions.unregister("test.Echo/Unary");
    }
    var idempotent = TestMethods.UNARY.toBuilder().setIdempotent(true).build();
    ClientCalls.blockingUnaryCall(channel, idempotent, CallOptions.DEFAULT, "d");
    assertThat(provider.seen.poll(5, TimeUnit.SECONDS).earlyDataAllowed()).as("idempotent method").isTrue();
  }

  @Test
  void theCallsDeadlineBecomesTheServerContextsDeadline() throws Exception {
    unary(CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), "x");
    io.grpc.Deadline d = handlerDeadline.get(5, TimeUnit.SECONDS).orElseThrow();
    assertThat(d.timeRemaining(TimeUnit.MILLISECONDS)).isBetween(1_000L, 5_000L);
  }

  @Test
  void aCallWithoutDeadlineHasNoServerDeadline() throws Exception {
    unary(CallOptions.DEFAULT, "x");
    assertThat(handlerDeadline.get(5, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void handlersSeeTheConnectionAndTheRemoteAddress() throws Exception {
    unary(CallOptions.DEFAULT, "x");
    assertThat(handlerInfo.get(5, TimeUnit.SECONDS).transport()).isEqualTo("capturing");
    assertThat(serverCall.get(5, TimeUnit.SECONDS).getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isNotNull();
    assertThat(TernChannels.selectedTransport(channel)).isEqualTo("capturing");
  }
}
